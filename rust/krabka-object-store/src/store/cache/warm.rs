//! Warming what a sequential reader reads next.
//!
//! A consumer catching up reads a segment to its end, then moves on to the
//! next segment at position 0. Without warming, that move costs round
//! trips the reader waits for: the next segment's indexes (Kafka fetches
//! them before it reads a segment it has not read yet), the first GET of
//! its log (which tells its version), then the first chunks of read-ahead.
//! So when a sequential reader's read-ahead reaches the end of its object,
//! the cache asks the object's tier what comes next ([`NextObjects`]) and
//! fetches the first chunks of each of those objects ahead:
//! - one unpinned ranged GET per object from position 0, of at most the
//!   reader's read-ahead depth and at most [`WARMED_CHUNKS`] chunks,
//!   never past the object's end; its answer tells the version and size,
//!   remembered as a reader's first read would remember them;
//! - counted and bounded as read-ahead: it takes one of the cache-wide
//!   read-ahead GETs in flight (none free: nothing is warmed), its bytes are
//!   prefetched bytes, and wasted ones are counted when evicted unread;
//! - once per pass through an object (the fetch whose read-ahead reaches
//!   the end asks; the fetches continuing it do not; a consumer reading the
//!   partition again later asks again);
//! - an object read before (its version known) gets those of its first
//!   chunks that are neither held nor in flight fetched as read-ahead of
//!   that version;
//! - the next object's first reader continues from position 0 with the
//!   depth the previous reader had reached, as if it had read on;
//! - the reader's read-ahead runs on past its object's end: once its
//!   window of `depth` chunks reaches beyond the end, the chunks of the
//!   objects read next that fall within it are fetched ahead too (of the
//!   version the warming GET learned), topped up as the reader moves, so
//!   the next object's chunk `k` is asked for as far ahead of its reader as
//!   within an object, not when the reader gets there. The warming starts
//!   one window before the window reaches the end (the listing and the
//!   first GET take round trips of their own).
//!
//! A failure (the listing, the GET) only means nothing is warmed: the
//! reader then reads the way it would have without warming.

use {
    super::{
        ChunkCache, ChunkKey, ChunkSource, Flight, ObjectId, ObjectInfo, Origin, Pattern,
        StoreRuntime, WARMED_CHUNKS, owned_error, split_into_chunks,
    },
    crate::store::{
        error::{Result, StoreError},
        errors::to_store_error,
        fetch::ObjectAt,
        reader::first_get_options,
    },
    object_store::{ObjectStore, path::Path},
    std::sync::{Arc, atomic::Ordering},
};

/// Where an object read next is fetched from.
pub(super) struct ObjectSource {
    pub(super) runtime: Arc<StoreRuntime>,
    pub(super) store: Arc<dyn ObjectStore>,
    pub(super) key: Path,
}

impl ChunkCache {
    /// Warms the objects `source`'s tier names as read after it (see the
    /// module documentation). `depth` is the reader's read-ahead depth in
    /// chunks.
    pub(super) fn warm_next(self: &Arc<Self>, source: &ChunkSource, depth: u64) {
        let Some(next) = source.next.as_ref() else {
            return;
        };
        if depth == 0 {
            return;
        }
        let listing = next();
        let cache = Arc::clone(self);
        let store = Arc::clone(&source.store);
        let runtime = Arc::clone(&source.runtime);
        let after = source.key.clone();
        let id = Arc::clone(&source.info.id);
        self.warming.fetch_add(1, Ordering::AcqRel);
        source.runtime.handle().spawn(async move {
            match listing.await {
                Ok(keys) => {
                    cache.lock().remember_next(&id, keys.clone().into());
                    let warms = keys.into_iter().map(|key| {
                        let source = ObjectSource {
                            runtime: Arc::clone(&runtime),
                            store: Arc::clone(&store),
                            key,
                        };
                        Arc::clone(&cache).warm(source, depth)
                    });
                    futures_util::future::join_all(warms).await;
                }
                Err(err) => {
                    tracing::debug!(object = %after, error = %err,
                        "could not find the objects read next; nothing is warmed");
                }
            }
            cache.warming.fetch_sub(1, Ordering::AcqRel);
        });
    }

    /// Runs `source`'s reader's read-ahead on into the objects read after
    /// it (those its warming found, of the versions it learned): their
    /// first `chunks` chunks, those neither held nor in flight, are fetched
    /// ahead. Returns whether it could: false until the warming has
    /// answered with a version of some object read next.
    pub(super) fn read_on(self: &Arc<Self>, source: &ChunkSource, chunks: u64) -> bool {
        let next = self.lock().next_objects.get(&source.info.id).cloned();
        let mut known = false;
        for key in next.iter().flat_map(|keys| keys.iter()) {
            let Some(info) = self.info(&ObjectAt::from(key.clone())) else {
                continue;
            };
            known = true;
            let object_chunks = info.size.div_ceil(self.config.chunk_bytes);
            let Some(last) = object_chunks.min(chunks).checked_sub(1) else {
                continue;
            };
            let next_source = ChunkSource {
                runtime: Arc::clone(&source.runtime),
                store: Arc::clone(&source.store),
                key: key.clone(),
                info,
                next: None,
            };
            self.prefetch(&next_source, 0..=last);
        }
        known
    }

    /// Fetches the first chunks of `source`'s object ahead; when no
    /// read-ahead GET is free, nothing. An object whose version is known
    /// already (a reader read it before) gets those of its first chunks
    /// that are neither held nor in flight fetched as read-ahead of that
    /// version.
    pub(super) async fn warm(self: Arc<Self>, source: ObjectSource, depth: u64) {
        let object = ObjectAt::from(source.key.clone());
        let chunks = depth.min(WARMED_CHUNKS as u64);
        if let Some(info) = self.info(&object) {
            self.reread(source, info, chunks, depth);
            return;
        }
        if !self.take_prefetch_slot() {
            return;
        }
        let warmed = self
            .warm_object(&*source.store, &object, chunks, depth)
            .await;
        self.release_prefetch_slot();
        if let Err(err) = warmed {
            tracing::debug!(object = %object.key, error = %err, "could not warm an object read next");
        }
    }

    /// One unpinned GET of the first chunks of `object`, delivered into the
    /// cache as read-ahead under the version it answered with.
    async fn warm_object(
        &self,
        store: &dyn ObjectStore,
        object: &ObjectAt,
        chunks: u64,
        depth: u64,
    ) -> Result<()> {
        let chunk = self.config.chunk_bytes;
        let options = first_get_options(0..chunks.saturating_mul(chunk));
        let answer = store
            .get_opts(&object.key, options)
            .await
            .map_err(|e| to_store_error(e, "read ahead of", object.key.as_ref()))?;
        self.counters.gets.fetch_add(1, Ordering::Relaxed);
        let Some(info) = ObjectInfo::of_answer(&object.key, &answer) else {
            return Ok(());
        };
        if answer.range.start != 0 {
            return Err(StoreError::Retryable {
                message: format!(
                    "a read ahead of {} from 0 was answered from {}",
                    object.key, answer.range.start
                ),
                source: None,
            });
        }
        if self.learn_if_absent(object.clone(), info.clone()).id != info.id {
            // A reader learned another version meanwhile: it reads that one.
            return Ok(());
        }
        self.counters.warmed_objects.fetch_add(1, Ordering::Relaxed);
        self.note_entry(&info, depth);
        let flights = self.claim_chunks(&info.id, answer.range.end.div_ceil(chunk));
        let mut pending = flights.into_iter();
        let split = split_into_chunks(answer, &object.key, chunk, |bytes| {
            match pending.next().flatten() {
                Some((key, flight)) => self.complete(key, &flight, Ok(bytes), Origin::ReadAhead),
                // Held or in flight already: fetched twice, never served.
                None => self.count_duplicate(bytes.len() as u64),
            }
        })
        .await;
        let undelivered: Vec<_> = pending.flatten().collect();
        match split {
            Ok(()) => Ok(()),
            Err(err) => {
                let failure = Arc::new(err);
                for (key, flight) in undelivered {
                    self.complete(key, &flight, Err(Arc::clone(&failure)), Origin::ReadAhead);
                }
                Err(owned_error(&failure))
            }
        }
    }

    /// Fetches ahead those of the first `chunks` chunks of the known
    /// version `info` of `source`'s object neither held nor in flight.
    fn reread(self: &Arc<Self>, source: ObjectSource, info: ObjectInfo, chunks: u64, depth: u64) {
        let object_chunks = info.size.div_ceil(self.config.chunk_bytes);
        let Some(last) = object_chunks.min(chunks).checked_sub(1) else {
            return;
        };
        self.counters.warmed_objects.fetch_add(1, Ordering::Relaxed);
        self.note_entry(&info, depth);
        let source = ChunkSource {
            runtime: source.runtime,
            store: source.store,
            key: source.key,
            info,
            next: None,
        };
        self.prefetch(&source, 0..=last);
    }

    /// Records that the next reader of `info`'s object enters it at
    /// position 0 reading ahead `depth` chunks, unless a reader stands
    /// within it now (one that read to the end does not).
    fn note_entry(&self, info: &ObjectInfo, depth: u64) {
        let mut state = self.lock();
        let within = state
            .positions
            .get(&info.id)
            .is_some_and(|last| last.position < info.size);
        let entry = Pattern {
            position: 0,
            depth,
            warmed_next: false,
            ahead_next: 0,
            ahead_to: None,
        };
        state.note_position(&info.id, entry, !within);
    }

    /// Registers a load in flight for each of the first `count` chunks of
    /// `object` neither held nor in flight (`None` for those that are).
    fn claim_chunks(
        &self,
        object: &Arc<ObjectId>,
        count: u64,
    ) -> Vec<Option<(ChunkKey, Arc<Flight>)>> {
        let mut state = self.lock();
        (0..count)
            .map(|index| {
                let key = ChunkKey {
                    object: Arc::clone(object),
                    index,
                };
                if state.chunks.contains(&key) || state.loading.contains_key(&key) {
                    return None;
                }
                let flight = Arc::new(Flight::default());
                state.loading.insert(key.clone(), Arc::clone(&flight));
                Some((key, flight))
            })
            .collect()
    }

    /// Counts `len` bytes fetched ahead for a chunk the cache had already.
    fn count_duplicate(&self, len: u64) {
        let c = &self.counters;
        c.bytes_fetched.fetch_add(len, Ordering::Relaxed);
        c.prefetched_bytes.fetch_add(len, Ordering::Relaxed);
        c.prefetch_unread_bytes.fetch_add(len, Ordering::Relaxed);
    }
}
