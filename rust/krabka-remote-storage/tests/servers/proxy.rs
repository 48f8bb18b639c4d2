//! A fault-injecting TCP proxy on loopback, in front of a real server.
//!
//! Modes: forward bytes both ways; refuse (every connection is closed at
//! once, as if the server were down); stall (accept, read, never answer);
//! throttle (answer the next N requests with `503 SlowDown` and close).
//! Forwarding can also "cut" the server after N uploaded bytes: every live
//! connection is dropped and the proxy switches to refuse.

use {
    std::{
        net::SocketAddr,
        sync::{
            Arc, Mutex,
            atomic::{AtomicU64, AtomicUsize, Ordering::SeqCst},
        },
    },
    tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        net::{TcpListener, TcpStream},
        sync::watch,
    },
};

/// What the proxy does with new connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Forward to the upstream server.
    Forward,
    /// Close every connection at once.
    Refuse,
    /// Accept and read, never answer.
    Stall,
    /// Answer this many requests with `503 SlowDown`, then forward.
    Throttle(usize),
}

#[derive(Debug)]
struct State {
    mode: Mutex<Mode>,
    kill: watch::Sender<u64>,
    connections: AtomicUsize,
    throttled: AtomicUsize,
    up_bytes: AtomicU64,
    cut_after: AtomicU64,
}

/// A running proxy; stops when dropped.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    state: Arc<State>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Proxy {
    /// A proxy to `upstream` (`host:port`) in `mode`.
    pub fn start(upstream: &str, mode: Mode) -> Self {
        let upstream: SocketAddr = upstream.parse().unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let state = Arc::new(State {
            mode: Mutex::new(mode),
            kill: watch::channel(0).0,
            connections: AtomicUsize::new(0),
            throttled: AtomicUsize::new(0),
            up_bytes: AtomicU64::new(0),
            cut_after: AtomicU64::new(0),
        });
        let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0")).unwrap();
        let addr = listener.local_addr().unwrap();
        let accept_state = Arc::clone(&state);
        runtime.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                accept_state.connections.fetch_add(1, SeqCst);
                tokio::spawn(serve(client, upstream, Arc::clone(&accept_state)));
            }
        });
        Self {
            addr,
            state,
            runtime: Some(runtime),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Switches the mode for new connections.
    pub fn set_mode(&self, mode: Mode) {
        *self.state.mode.lock().unwrap() = mode;
    }

    /// Drops every live connection (they see a reset).
    pub fn kill_connections(&self) {
        self.state.kill.send_modify(|generation| *generation += 1);
    }

    /// After `bytes` more uploaded bytes, drop every connection and refuse.
    pub fn cut_after_upload(&self, bytes: u64) {
        self.state
            .cut_after
            .store(self.state.up_bytes.load(SeqCst) + bytes, SeqCst);
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.state.connections.load(SeqCst)
    }

    /// Requests answered with 503 so far.
    pub fn throttled(&self) -> usize {
        self.state.throttled.load(SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn serve(mut client: TcpStream, upstream: SocketAddr, state: Arc<State>) {
    let mode = {
        let mut mode = state.mode.lock().unwrap();
        let current = *mode;
        if let Mode::Throttle(n) = current {
            *mode = if n > 1 {
                Mode::Throttle(n - 1)
            } else {
                Mode::Forward
            };
        }
        current
    };
    match mode {
        Mode::Refuse => {}
        Mode::Stall => {
            let mut kill = state.kill.subscribe();
            let mut sink = vec![0; 64 * 1024];
            loop {
                tokio::select! {
                    _ = kill.changed() => return,
                    read = client.read(&mut sink) => if matches!(read, Ok(0) | Err(_)) { return },
                }
            }
        }
        Mode::Throttle(_) => {
            if discard_request(&mut client).await.is_some() {
                let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
                let answer = format!(
                    "HTTP/1.1 503 Slow Down\r\ncontent-type: application/xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                state.throttled.fetch_add(1, SeqCst);
                let _ = client.write_all(answer.as_bytes()).await;
                let _ = client.shutdown().await;
            }
        }
        Mode::Forward => forward(client, upstream, state).await,
    }
}

/// Reads one request (head and `content-length` body).
async fn discard_request(client: &mut TcpStream) -> Option<()> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if client.read(&mut byte).await.ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let mut remaining: u64 = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    let mut sink = vec![0; 64 * 1024];
    while remaining > 0 {
        let n = client.read(&mut sink).await.ok()?;
        if n == 0 {
            return None;
        }
        remaining = remaining.saturating_sub(n as u64);
    }
    Some(())
}

async fn forward(client: TcpStream, upstream: SocketAddr, state: Arc<State>) {
    let Ok(server) = TcpStream::connect(upstream).await else {
        return;
    };
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let mut kill = state.kill.subscribe();
    let up_state = Arc::clone(&state);
    let up = async move {
        let mut buffer = vec![0; 64 * 1024];
        loop {
            let n = match client_read.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let total = up_state.up_bytes.fetch_add(n as u64, SeqCst) + n as u64;
            let cut = up_state.cut_after.load(SeqCst);
            if cut > 0 && total >= cut {
                up_state.cut_after.store(0, SeqCst);
                *up_state.mode.lock().unwrap() = Mode::Refuse;
                up_state.kill.send_modify(|generation| *generation += 1);
                return;
            }
            if server_write.write_all(&buffer[..n]).await.is_err() {
                return;
            }
        }
    };
    let down = async move {
        let mut buffer = vec![0; 64 * 1024];
        loop {
            match server_read.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if client_write.write_all(&buffer[..n]).await.is_err() {
                        return;
                    }
                }
            }
        }
    };
    tokio::select! {
        _ = kill.changed() => {}
        () = async { tokio::join!(up, down); } => {}
    }
}
