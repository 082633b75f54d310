public import Upload

extension Configuration.Upload {
    /// The uploader's options from `[Upload]`.
    public var options: UploadOptions {
        UploadOptions(batchCount: batchSize, batchBytes: Int(batchBytes), batchAge: batchAge, retryCap: retryCap, maxQueuedBytes: Int(maxQueueBytes))
    }
}
