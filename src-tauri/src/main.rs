fn main() {
    tandem_lib::run()
}
