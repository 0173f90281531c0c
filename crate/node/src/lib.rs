//! The Node-API binding: the only module that knows about JS. Each submodule converts the types
//! of one core module (`From` impls and argument checks napi cannot do); every decision is
//! made in the core modules or in TypeScript. Work that takes time runs on the libuv pool
//! through [`job`]. A failure crosses as a JS Error whose message is the line a person reads
//! and whose `cause.message` is `{"code":…,"path":…}` (see [`claude_jsonl_core::failure`]).
// Compiled for tests (`cargo clippy --all-targets`), napi's registration of the exports is left
// out, so every exported type and function looks unused; the library build checks them.
#![cfg_attr(test, allow(dead_code))]

mod archive;
mod client;
mod compress;
mod conversation;
mod dataset;
mod estate;
mod find_exact;
mod graph;
mod hash;
mod in_place;
mod mapped;
mod records;
mod repair;
mod scan;
mod search;
mod store;
mod tool_targets;
mod topology;
mod transcript_facts;
mod validate;

use claude_jsonl_core::failure::{Code, Failure};
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The code a native failure carries (see [`claude_jsonl_core::failure::Code`]).
#[napi(string_enum = "kebab-case")]
pub enum NativeErrorCode {
    Io,
    Changed,
    Store,
    Locked,
    Archive,
    InvalidArgument,
    Usage,
    IllegalCut,
    Internal,
}

impl From<Code> for NativeErrorCode {
    fn from(c: Code) -> NativeErrorCode {
        match c {
            Code::Io => NativeErrorCode::Io,
            Code::Changed => NativeErrorCode::Changed,
            Code::Store => NativeErrorCode::Store,
            Code::Locked => NativeErrorCode::Locked,
            Code::Archive => NativeErrorCode::Archive,
            Code::InvalidArgument => NativeErrorCode::InvalidArgument,
            Code::Usage => NativeErrorCode::Usage,
            Code::IllegalCut => NativeErrorCode::IllegalCut,
            Code::Internal => NativeErrorCode::Internal,
        }
    }
}

/// Every code as it crosses to JS, the same spelling the failure's data carries (a test checks
/// that each one names itself).
#[napi]
pub fn native_error_codes() -> Vec<NativeErrorCode> {
    Code::ALL.into_iter().map(NativeErrorCode::from).collect()
}

/// A core failure as the error JS sees: the message as it is, the code and path as data.
pub(crate) fn js_error(f: Failure) -> Error {
    let status = match f.code {
        Code::InvalidArgument | Code::Usage | Code::IllegalCut => Status::InvalidArg,
        _ => Status::GenericFailure,
    };
    let mut e = Error::new(status, f.message.clone());
    e.cause = Some(Box::new(Error::new(Status::GenericFailure, f.data_json())));
    e
}

/// `Failure::new(code, message)` as a JS error.
pub(crate) fn fail(code: Code, message: impl Into<String>) -> Error {
    js_error(Failure::new(code, message))
}

/// Work for the libuv pool: a closure computing a value that converts to JS by itself.
pub struct Job<T: Send + 'static> {
    work: Option<Box<dyn FnOnce() -> std::result::Result<T, Failure> + Send>>,
}

impl<T: ToNapiValue + TypeName + Send + 'static> Task for Job<T> {
    type Output = T;
    type JsValue = T;
    fn compute(&mut self) -> Result<T> {
        let work = self.work.take().ok_or_else(|| fail(Code::Internal, "a native job ran twice"))?;
        work().map_err(js_error)
    }
    fn resolve(&mut self, _env: Env, output: T) -> Result<T> {
        Ok(output)
    }
}

/// Runs `work` off the JS thread; the promise resolves with its value or rejects with its
/// failure.
pub(crate) fn job<T: ToNapiValue + TypeName + Send + 'static>(
    work: impl FnOnce() -> std::result::Result<T, Failure> + Send + 'static,
) -> AsyncTask<Job<T>> {
    AsyncTask::new(Job { work: Some(Box::new(work)) })
}
