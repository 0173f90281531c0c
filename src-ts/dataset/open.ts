// A dataset destination from what a person typed: a folder, or `s3://bucket/prefix`.
import { existsSync } from 'node:fs'
import { inputError, usageError } from '../errors.js'
import { FolderDestination, type DatasetDestination } from './destination.js'

export interface OpenOptions {
  /** Create a missing folder (export); a reader refuses one. */
  create: boolean
}

export async function openDestination(dest: string, opts: OpenOptions): Promise<DatasetDestination> {
  if (dest.trim() === '') throw usageError('a dataset needs a folder or s3://bucket/prefix, not an empty string')
  if (/^s3:\/\//i.test(dest)) {
    const { S3Destination } = await import('./s3.js')
    return S3Destination.open(dest)
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dest)) throw usageError(`${dest}: a dataset is a folder or s3://bucket/prefix`)
  const folder = new FolderDestination(dest)
  if (!opts.create) {
    if (!existsSync(folder.root)) throw inputError(folder.root, 'no such folder')
  }
  return folder.open()
}
