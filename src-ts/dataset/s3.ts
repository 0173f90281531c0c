// A dataset in S3-compatible object storage, `s3://bucket/prefix`. Region and credentials come
// from the usual AWS environment variables and files (the AWS SDK's default chain); a custom
// endpoint (MinIO, moto, Ceph) from AWS_ENDPOINT_URL, with path-style addressing. A put is one
// PutObject: a reader sees the old object or the whole new one. Queries read a local copy of the
// objects (kept under the cache folder, fetched again only when an object's ETag changed).
import { mkdirSync, readFileSync, existsSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { createHash } from 'node:crypto'
import { ClaudeJsonlError, EXIT, usageError } from '../errors.js'
import { checkKey, type DatasetDestination, type DatasetObject } from './destination.js'
import { requireDependency } from '../lazy-dependency.js'

type S3Module = typeof import('@aws-sdk/client-s3')

/** One line for a failure of the storage: what was asked of it, and what it said. */
function storageError(label: string, what: string, e: unknown): ClaudeJsonlError {
  const err = e as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } }
  const status = err.$metadata?.httpStatusCode
  const why =
    err.name === 'NoSuchBucket'
      ? 'the bucket does not exist'
      : err.name === 'InvalidAccessKeyId' || err.name === 'SignatureDoesNotMatch' || status === 403
        ? 'access denied (check the credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE)'
        : err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.name === 'TimeoutError'
          ? `the endpoint cannot be reached (${err.code ?? err.name})`
          : `${err.name ?? 'error'}${err.message ? `: ${String(err.message).split('\n')[0]}` : ''}`
  return new ClaudeJsonlError(`${label}: cannot ${what}: ${why}`, EXIT.input)
}

export class S3Destination implements DatasetDestination {
  readonly label: string

  private constructor(
    private readonly s3: S3Module,
    private readonly client: InstanceType<S3Module['S3Client']>,
    readonly bucket: string,
    readonly prefix: string,
    private readonly cacheRoot: string,
  ) {
    this.label = `s3://${bucket}/${prefix}`.replace(/\/$/, '')
  }

  static async open(url: string, env: NodeJS.ProcessEnv = process.env): Promise<S3Destination> {
    const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/i.exec(url)
    if (!m) throw usageError(`${url}: not an s3://bucket/prefix address`)
    const bucket = m[1]
    const prefix = (m[2] ?? '').replace(/^\/+|\/+$/g, '')
    if (prefix) checkKey(prefix)
    // The SDK warns on stderr, once per process, that its later releases will need a newer Node:
    // a note for whoever pins its version, not a line for every export or query.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'
    const s3 = requireDependency('@aws-sdk/client-s3') as S3Module
    const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL
    const client = new s3.S3Client({
      region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
      maxAttempts: 2,
    })
    const cache = join(
      env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'),
      'claude-jsonl',
      'datasets',
      createHash('sha256')
        .update(`${endpoint ?? ''}\0${bucket}\0${prefix}`)
        .digest('hex')
        .slice(0, 16),
    )
    const d = new S3Destination(s3, client, bucket, prefix, cache)
    try {
      await client.send(new s3.HeadBucketCommand({ Bucket: bucket }))
    } catch (e) {
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
      throw storageError(d.label, 'open the bucket', status === 404 ? { name: 'NoSuchBucket' } : e)
    }
    return d
  }

  private key(k: string): string {
    return this.prefix ? `${this.prefix}/${checkKey(k)}` : checkKey(k)
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = []
    let token: string | undefined
    const full = this.key(prefix.replace(/\/$/, '')) + '/'
    do {
      let r
      try {
        r = await this.client.send(
          new this.s3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: full, ContinuationToken: token }),
        )
      } catch (e) {
        throw storageError(this.label, `list ${prefix}`, e)
      }
      for (const o of r.Contents ?? []) if (o.Key) out.push(o.Key.slice(this.prefix ? this.prefix.length + 1 : 0))
      token = r.IsTruncated ? r.NextContinuationToken : undefined
    } while (token)
    return out.filter((k) => !k.split('/').some((p) => p.startsWith('.'))).sort()
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      const r = await this.client.send(new this.s3.GetObjectCommand({ Bucket: this.bucket, Key: this.key(key) }))
      return Buffer.from(await r.Body!.transformToByteArray())
    } catch (e) {
      if ((e as { name?: string }).name === 'NoSuchKey') return undefined
      throw storageError(this.label, `read ${key}`, e)
    }
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    try {
      await this.client.send(new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: bytes }))
    } catch (e) {
      throw storageError(this.label, `write ${key}`, e)
    }
  }

  async putMany(objects: DatasetObject[]): Promise<void> {
    await Promise.all(objects.map((o) => this.put(o.key, o.bytes)))
  }

  async putIfAbsent(key: string, bytes: Uint8Array): Promise<boolean> {
    try {
      await this.client.send(
        new this.s3.PutObjectCommand({ Bucket: this.bucket, Key: this.key(key), Body: bytes, IfNoneMatch: '*' }),
      )
      return true
    } catch (e) {
      // 412: the object exists; 409: another conditional write of it is in flight.
      const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
      if (status === 412 || status === 409) return false
      throw storageError(this.label, `write ${key}`, e)
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new this.s3.DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) }))
    } catch (e) {
      throw storageError(this.label, `delete ${key}`, e)
    }
  }

  /**
   * A local copy of the dataset's Parquet files for the query engine: each object fetched once,
   * again only when its ETag changed; objects gone from the bucket are removed from the copy.
   */
  async localRoot(): Promise<string> {
    const root = join(this.cacheRoot, 'files')
    const etagsPath = join(this.cacheRoot, 'etags.json')
    const known: Record<string, string> = existsSync(etagsPath) ? JSON.parse(readFileSync(etagsPath, 'utf8')) : {}
    const now: Record<string, string> = {}
    let token: string | undefined
    const objects: { key: string; etag: string }[] = []
    do {
      let r
      try {
        r = await this.client.send(
          new this.s3.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.prefix ? `${this.prefix}/` : undefined,
            ContinuationToken: token,
          }),
        )
      } catch (e) {
        throw storageError(this.label, 'list the dataset', e)
      }
      for (const o of r.Contents ?? [])
        if (o.Key && o.Key.endsWith('.parquet'))
          objects.push({ key: o.Key.slice(this.prefix ? this.prefix.length + 1 : 0), etag: o.ETag ?? '' })
      token = r.IsTruncated ? r.NextContinuationToken : undefined
    } while (token)
    for (const o of objects) {
      const local = join(root, ...checkKey(o.key).split('/'))
      if (known[o.key] !== o.etag || !existsSync(local)) {
        const bytes = await this.get(o.key)
        if (!bytes) continue
        mkdirSync(dirname(local), { recursive: true })
        writeFileSync(`${local}.tmp`, bytes)
        renameSync(`${local}.tmp`, local)
      }
      now[o.key] = o.etag
    }
    for (const k of Object.keys(known)) if (!(k in now)) rmSync(join(root, ...k.split('/')), { force: true })
    mkdirSync(root, { recursive: true })
    writeFileSync(etagsPath, JSON.stringify(now))
    return root
  }
}
