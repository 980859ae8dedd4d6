//! What the test suites share, compiled once: a small HTTP responder on 127.0.0.1 that
//! answers each request with what a route function makes of it. Real sockets, real HTTP/1.1;
//! only the server's answers are scripted. Nothing here is part of the product.

pub mod http;
