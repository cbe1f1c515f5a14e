//! `tessera`, the app: the command line (every subcommand) and the window loop, as a library
//! so that two thin entries share it: the desktop binary (`src/main.rs`) and the Android
//! NativeActivity library (`crates/android`, `android_main`).

#![forbid(unsafe_code)]

pub mod cli;

pub use cli::run::{run_window, PhoneLaunch};
