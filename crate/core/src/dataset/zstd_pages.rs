//! zstd compression of a Parquet column chunk's pages with one compression context per thread.
//!
//! The parquet crate's column writer makes a zstd compressor and a decompressor for every column
//! chunk it writes, and creating a zstd context runs the `cpuid` instruction, which a virtual
//! machine traps: an estate's export writes thousands of small chunks (a file per table and day),
//! and those contexts cost about a twentieth of its CPU time. So the column writer is told to
//! leave the pages uncompressed, [`ZstdPages`] compresses each page as it passes to the chunk's
//! page writer (the column writer's own rule for format version 1 pages: a data page's whole
//! buffer, levels and values, and the dictionary page's), and [`as_zstd`] records the codec in
//! the chunk's metadata. The bytes are the ones the column writer would have written itself.

use parquet::basic::{Compression, ZstdLevel};
use parquet::column::page::{CompressedPage, Page, PageWriteSpec, PageWriter};
use parquet::errors::{ParquetError, Result};
use parquet::file::metadata::ColumnChunkMetaData;
use std::cell::RefCell;

/// The level of every compressed column. A page holds a few kilobytes (a day of one machine's
/// rows): level 1 makes them as small as level 3 did (the bench estate's dataset 0.6% smaller)
/// in less time.
pub const LEVEL: i32 = 1;

/// The codec recorded for a compressed column.
pub fn codec() -> Compression {
    Compression::ZSTD(ZstdLevel::try_new(LEVEL).expect("a valid zstd level"))
}

thread_local! {
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
}

/// One zstd frame of `input`, from this thread's context.
fn compress(input: &[u8]) -> Result<Vec<u8>> {
    COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        let c = match &mut *slot {
            Some(c) => c,
            None => slot.insert(zstd::bulk::Compressor::new(LEVEL).map_err(|e| ParquetError::External(Box::new(e)))?),
        };
        let mut out = Vec::with_capacity(zstd::zstd_safe::compress_bound(input.len()));
        c.compress_to_buffer(input, &mut out).map_err(|e| ParquetError::External(Box::new(e)))?;
        Ok(out)
    })
}

/// A page writer that compresses each page (written uncompressed by the column writer) before
/// `inner` writes it.
pub struct ZstdPages<W> {
    pub inner: W,
}

impl<W: PageWriter> PageWriter for ZstdPages<W> {
    fn write_page(&mut self, page: CompressedPage) -> Result<PageWriteSpec> {
        let uncompressed = page.uncompressed_size();
        let page = match page.compressed_page() {
            Page::DataPage { buf, num_values, encoding, def_level_encoding, rep_level_encoding, statistics } => {
                Page::DataPage {
                    buf: compress(buf)?.into(),
                    num_values: *num_values,
                    encoding: *encoding,
                    def_level_encoding: *def_level_encoding,
                    rep_level_encoding: *rep_level_encoding,
                    statistics: statistics.clone(),
                }
            }
            Page::DictionaryPage { buf, num_values, encoding, is_sorted } => Page::DictionaryPage {
                buf: compress(buf)?.into(),
                num_values: *num_values,
                encoding: *encoding,
                is_sorted: *is_sorted,
            },
            // Version 2 pages compress their values alone; the files are written as version 1.
            Page::DataPageV2 { .. } => return Err(ParquetError::General("a version 2 data page".into())),
        };
        self.inner.write_page(CompressedPage::new(page, uncompressed))
    }

    fn close(&mut self) -> Result<()> {
        self.inner.close()
    }
}

/// `metadata` of a chunk whose pages [`ZstdPages`] compressed, with the codec it used.
pub fn as_zstd(metadata: ColumnChunkMetaData) -> Result<ColumnChunkMetaData> {
    metadata.into_builder().set_compression(codec()).build()
}
