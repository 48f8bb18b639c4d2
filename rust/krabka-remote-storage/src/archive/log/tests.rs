use {
    super::*,
    krabka_worm::{
        ManifestSigner,
        tlog::{LeafHashes, proof::tree_root, tile::decode_bundle},
    },
    object_store::{ObjectStoreExt, memory::InMemory},
};

const ORIGIN: &str = "archive.example/test";

fn log_on(store: &Arc<dyn ObjectStore>, secret: u8) -> ArchiveLog {
    let signer = ManifestSigner::from_secret_bytes(&[secret; 32], "k").unwrap();
    ArchiveLog::new(
        Arc::clone(store),
        Some("pre".to_owned()),
        signer.note_signer(ORIGIN).unwrap(),
        Vec::new(),
        ArchiveLogConfig::new(ORIGIN),
    )
    .unwrap()
}

fn seal(i: usize) -> (String, Vec<u8>) {
    (
        format!("pre/t-0-AAAAAAAAAAAAAAAAAAAAAA/_chain/e/{i:020}.seal"),
        format!("seal {i}").into_bytes(),
    )
}

/// The leaf hashes of every claim, in index order.
async fn claimed_leaves(store: &dyn ObjectStore, layout: &LogLayout) -> Vec<LogHash> {
    let mut leaves = Vec::new();
    while let Some(bytes) = read_bounded(store, &layout.claim(leaves.len() as u64), 4096)
        .await
        .unwrap()
    {
        leaves.push(LogHash::leaf(&bytes));
    }
    leaves
}

#[tokio::test]
async fn checkpoints_commit_to_every_claim_and_a_restarted_writer_continues_the_tree() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let log = log_on(&store, 1);
    for i in 0..300 {
        let (key, bytes) = seal(i);
        assert_eq!(log.append(&key, &bytes).await.unwrap(), i as u64);
    }
    let first = log.publish().await.unwrap().unwrap();
    assert_eq!(first.size, 300);
    let mut leaves = LeafHashes(claimed_leaves(&*store, log.layout()).await);
    assert_eq!(first.root, tree_root(&mut leaves, 300).unwrap());
    // Nothing new: no second checkpoint.
    assert_eq!(log.publish().await.unwrap().unwrap(), first);
    assert!(
        read_checkpoint(&*store, log.layout(), 1)
            .await
            .unwrap()
            .is_none()
    );

    // A second writer (another key, a fresh start) claims after the first's
    // leaves and its checkpoint extends the tree.
    let other = log_on(&store, 1);
    for i in 300..620 {
        let (key, bytes) = seal(i);
        other.append(&key, &bytes).await.unwrap();
    }
    let second = other.publish().await.unwrap().unwrap();
    assert_eq!(second.size, 620);
    let mut leaves = LeafHashes(claimed_leaves(&*store, log.layout()).await);
    assert_eq!(second.root, tree_root(&mut leaves, 620).unwrap());
    // The entry bundles hold the entries in order.
    let bundle = read_bundle(&*store, log.layout(), 1, 256).await.unwrap();
    assert_eq!(
        LogEntry::from_bytes(&bundle[0]).unwrap().seal_key,
        "t-0-AAAAAAAAAAAAAAAAAAAAAA/_chain/e/00000000000000000256.seal"
    );
    let tail = store
        .get(&Path::from(log.layout().tile(TileId {
            level: TileId::ENTRIES,
            index: 2,
            width: 108,
        })))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(decode_bundle(&tail, 108).unwrap().len(), 108);
    // The first writer's stale view learns the new checkpoint and goes on.
    let (key, bytes) = seal(620);
    log.append(&key, &bytes).await.unwrap();
    let third = log.publish().await.unwrap().unwrap();
    assert_eq!(third.size, 621);
    assert!(
        read_checkpoint(&*store, log.layout(), 2)
            .await
            .unwrap()
            .is_some()
    );
}

#[tokio::test]
async fn concurrent_writers_claim_distinct_indexes() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let a = Arc::new(log_on(&store, 1));
    let b = Arc::new(log_on(&store, 2));
    let mut tasks = Vec::new();
    for i in 0..40 {
        let log = if i % 2 == 0 {
            Arc::clone(&a)
        } else {
            Arc::clone(&b)
        };
        tasks.push(tokio::spawn(async move {
            let (key, bytes) = seal(i);
            log.append(&key, &bytes).await.unwrap()
        }));
    }
    let mut indexes = Vec::new();
    for task in tasks {
        indexes.push(task.await.unwrap());
    }
    indexes.sort_unstable();
    assert_eq!(indexes, (0..40).collect::<Vec<u64>>());
}

#[tokio::test]
async fn a_tampered_tile_stops_publishing_instead_of_extending_it() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let log = log_on(&store, 1);
    for i in 0..5 {
        let (key, bytes) = seal(i);
        log.append(&key, &bytes).await.unwrap();
    }
    log.publish().await.unwrap();
    let tile = log.layout().tile(TileId {
        level: 0,
        index: 0,
        width: 5,
    });
    store
        .put(&Path::from(tile), Bytes::from(vec![0u8; 160]).into())
        .await
        .unwrap();
    let restarted = log_on(&store, 1);
    let (key, bytes) = seal(5);
    restarted.append(&key, &bytes).await.unwrap();
    assert!(matches!(
        restarted.publish().await,
        Err(RemoteStorageError::Integrity { .. })
    ));
    assert!(
        read_checkpoint(&*store, log.layout(), 1)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_checkpoint_signed_by_no_key_of_the_log_is_not_built_on() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let stranger = log_on(&store, 9);
    let (key, bytes) = seal(0);
    stranger.append(&key, &bytes).await.unwrap();
    stranger.publish().await.unwrap();
    let log = log_on(&store, 1);
    assert!(matches!(
        log.publish().await,
        Err(RemoteStorageError::Integrity { .. })
    ));
}

#[tokio::test]
async fn ensure_logged_claims_only_a_seal_without_its_marker() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let log = log_on(&store, 1);
    let (key, bytes) = seal(0);
    log.append(&key, &bytes).await.unwrap();
    log.ensure_logged(&key, &bytes).await.unwrap();
    let (other, other_bytes) = seal(1);
    log.ensure_logged(&other, &other_bytes).await.unwrap();
    assert_eq!(claimed_leaves(&*store, log.layout()).await.len(), 2);
    // Once flushed, both markers are in the store: a writer starting afresh
    // logs neither again.
    log.flush_markers().await;
    let afresh = log_on(&store, 1);
    afresh.ensure_logged(&key, &bytes).await.unwrap();
    afresh.ensure_logged(&other, &other_bytes).await.unwrap();
    assert_eq!(claimed_leaves(&*store, log.layout()).await.len(), 2);
}

#[tokio::test]
async fn a_witness_that_is_down_delays_only_its_cosignature() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let witness_key = ManifestSigner::from_secret_bytes(&[7; 32], "w").unwrap();
    let vkey = NoteVerifier::new(
        "down.example",
        krabka_worm::tlog::note::COSIGNATURE_TYPE,
        witness_key.public_key(),
    )
    .unwrap()
    .to_string();
    let signer = ManifestSigner::from_secret_bytes(&[1; 32], "k").unwrap();
    // Nothing listens on port 9 of the loopback: every submission fails.
    let log = ArchiveLog::new(
        Arc::clone(&store),
        Some("pre".to_owned()),
        signer.note_signer(ORIGIN).unwrap(),
        Vec::new(),
        ArchiveLogConfig::new(ORIGIN)
            .with_witness(WitnessConfig::new("http://127.0.0.1:9", &vkey).unwrap()),
    )
    .unwrap();
    for i in 0..3 {
        let (key, bytes) = seal(i);
        log.append(&key, &bytes).await.unwrap();
    }
    let checkpoint = log.publish().await.unwrap().unwrap();
    assert_eq!(checkpoint.size, 3);
    let witness = NoteVerifier::parse(&vkey).unwrap();
    assert!(
        !exists(&*store, &log.layout().cosignature(0, &witness))
            .await
            .unwrap()
    );
    // The next claims and checkpoints go on.
    let (key, bytes) = seal(3);
    log.append(&key, &bytes).await.unwrap();
    assert_eq!(log.publish().await.unwrap().unwrap().size, 4);
}
