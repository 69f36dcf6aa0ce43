//! Links the addon as Node expects a native module to be linked.
fn main() {
    napi_build::setup();
}
