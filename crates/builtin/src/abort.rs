//! Stop inside a llama.cpp call. One prompt batch is a single `llama_decode` that computes for
//! seconds on a CPU (512 tokens of a 1.5B model: ~7 s on two cores), and smaller batches cost
//! up to half the prompt speed (measured: 35 tok/s at 8 tokens against 66 at 256). llama.cpp
//! asks an abort callback after every node of its compute graph (a few ms apart); returning
//! true ends the call, and it removes the half-computed batch from the KV cache itself, so the
//! tokens cached before it stay usable.
//!
//! llama-cpp-2 =0.1.160 does not expose the callback, and keeps the context's pointer private;
//! its `LlamaContextParams` is a one-field wrapper of the C struct, so the callback is set on
//! that struct — after checking, field by field, that the wrapper really is laid out as the
//! struct. If the check ever fails (a new version of the crate), Stop still works, at the end
//! of the running batch.

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_sys_2::llama_context_params;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A reply's Stop: set once by whoever gives the reply up, read by the model's thread.
#[derive(Debug, Default)]
pub struct StopFlag {
    stopped: AtomicBool,
    at: Mutex<Option<Instant>>,
}

impl StopFlag {
    pub fn stop(&self) {
        let mut at = self.at.lock().unwrap_or_else(PoisonError::into_inner);
        at.get_or_insert_with(Instant::now);
        self.stopped.store(true, Ordering::Release);
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Acquire)
    }

    /// How long ago Stop came.
    pub fn since(&self) -> Duration {
        self.at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .map_or(Duration::ZERO, |t| t.elapsed())
    }
}

/// How the model's thread let go of the last reply that was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopReport {
    /// The stop cut a llama.cpp call short (rather than waiting for it to end).
    pub inside_call: bool,
    /// From Stop to the thread being free for the next reply.
    pub latency: Duration,
}

/// The flag llama.cpp's callback reads: the running reply's, or none between replies. Lives as
/// long as the context that points at it.
#[derive(Debug, Default)]
pub struct AbortSlot {
    current: AtomicPtr<StopFlag>,
    /// llama.cpp calls that ended because of Stop.
    cut_short: AtomicU64,
    last_stop: Mutex<Option<StopReport>>,
}

impl AbortSlot {
    /// Makes `flag` the one llama.cpp checks until the returned guard drops.
    pub fn watch<'a>(&'a self, flag: &'a StopFlag) -> Watch<'a> {
        self.current
            .store(std::ptr::from_ref(flag).cast_mut(), Ordering::Release);
        Watch { slot: self }
    }

    pub fn calls_cut_short(&self) -> u64 {
        self.cut_short.load(Ordering::Relaxed)
    }

    pub fn last_stop(&self) -> Option<StopReport> {
        *self
            .last_stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The thread let go of a stopped reply.
    pub fn stopped(&self, report: StopReport) {
        *self
            .last_stop
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(report);
    }

    /// `params` with the callback set, or `None` when they cannot be read as llama.cpp's
    /// struct (see the module's comment).
    pub fn install(&self, params: &LlamaContextParams) -> Option<LlamaContextParams> {
        // The wrapper must be exactly the C struct, in size and alignment, before its bytes
        // are read as one.
        if size_of::<LlamaContextParams>() != size_of::<llama_context_params>()
            || align_of::<LlamaContextParams>() != align_of::<llama_context_params>()
        {
            return None;
        }
        // SAFETY: same size and alignment (checked above); the C struct is plain data (numbers,
        // enums as integers, and pointers), so any bytes the wrapper holds are a valid value,
        // and the fields compared next prove they are at the C struct's offsets.
        let mut raw: llama_context_params = unsafe { std::mem::transmute_copy(params) };
        let fits = raw.n_ctx == params.n_ctx().map_or(0, |n| n.get())
            && raw.n_batch == params.n_batch()
            && raw.n_ubatch == params.n_ubatch()
            && raw.n_threads == params.n_threads()
            && raw.n_threads_batch == params.n_threads_batch()
            && raw.abort_callback.is_none()
            && raw.abort_callback_data.is_null();
        if !fits {
            return None;
        }
        raw.abort_callback = Some(should_abort);
        raw.abort_callback_data = std::ptr::from_ref(self).cast_mut().cast::<c_void>();
        // SAFETY: the same layout, checked above, read back the other way.
        Some(unsafe { std::mem::transmute_copy(&raw) })
    }
}

/// While it lives, llama.cpp's calls end early once the watched flag is set.
pub struct Watch<'a> {
    slot: &'a AbortSlot,
}

impl Watch<'_> {
    /// Counts a call that ended because of Stop.
    pub fn cut_short(&self) {
        self.slot.cut_short.fetch_add(1, Ordering::Relaxed);
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        self.slot
            .current
            .store(std::ptr::null_mut(), Ordering::Release);
    }
}

/// Asked by llama.cpp (on its first compute thread) after each graph node.
unsafe extern "C" fn should_abort(data: *mut c_void) -> bool {
    // SAFETY: `data` is the AbortSlot `install` was called on, which outlives the context
    // (the model's thread owns both and drops the context first).
    let slot = unsafe { &*data.cast::<AbortSlot>() };
    let flag = slot.current.load(Ordering::Acquire);
    // SAFETY: a non-null pointer is the running reply's flag; `Watch` clears it before that
    // reply (and its flag) ends.
    !flag.is_null() && unsafe { &*flag }.is_stopped()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    #[test]
    fn the_callback_is_set_on_the_params_llama_cpp_reads() {
        let slot = AbortSlot::default();
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(1234))
            .with_n_batch(77)
            .with_n_threads(3);
        let with = slot.install(&params).expect("the wrapper is the C struct");
        assert_eq!(with.n_ctx(), NonZeroU32::new(1234));
        assert_eq!((with.n_batch(), with.n_threads()), (77, 3));
        // SAFETY: as in `install`.
        let raw: llama_context_params = unsafe { std::mem::transmute_copy(&with) };
        let callback = raw.abort_callback.expect("a callback");
        let flag = StopFlag::default();
        {
            let _w = slot.watch(&flag);
            // SAFETY: the data pointer is `slot`, alive here.
            assert!(!unsafe { callback(raw.abort_callback_data) });
            flag.stop();
            assert!(unsafe { callback(raw.abort_callback_data) });
        }
        // Between replies nothing is watched.
        assert!(!unsafe { callback(raw.abort_callback_data) });
    }
}
