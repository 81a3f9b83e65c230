//! The end-to-end test in headless Chromium (see below).
