//! [`WithStorageClass`]: every object written through a store gets one S3
//! storage class.
//!
//! `object_store` sends `x-amz-storage-class` from a per-request attribute,
//! not from the client configuration; this wrapper adds the attribute to
//! every single PUT and every multipart upload, so no tier has to know.

use {
    async_trait::async_trait,
    futures_util::stream::BoxStream,
    object_store::{
        Attribute, AttributeValue, CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload,
        ObjectMeta, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, Result,
        path::Path,
    },
    std::{fmt, sync::Arc},
};

/// A store whose writes all carry the storage class `class`.
#[derive(Debug)]
pub struct WithStorageClass {
    inner: Arc<dyn ObjectStore>,
    class: AttributeValue,
}

impl WithStorageClass {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn ObjectStore>, class: &str) -> Self {
        Self {
            inner,
            class: AttributeValue::from(class.to_owned()),
        }
    }
}

impl fmt::Display for WithStorageClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "WithStorageClass({}, {})",
            self.class.as_ref(),
            self.inner
        )
    }
}

#[async_trait]
impl ObjectStore for WithStorageClass {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        mut opts: PutOptions,
    ) -> Result<PutResult> {
        opts.attributes
            .insert(Attribute::StorageClass, self.class.clone());
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        mut opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        opts.attributes
            .insert(Attribute::StorageClass, self.class.clone());
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        // The inner store's own (S3's `start-after`), not a whole listing
        // filtered here.
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
