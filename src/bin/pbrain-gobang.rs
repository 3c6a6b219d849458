//! `pbrain-gobang`: the Gobang engine as a Gomocup (piskvork) brain with the common Yixin-Board
//! extensions. Talks the protocol on stdin/stdout; see `gobang::protocol::gomocup`.

fn main() -> anyhow::Result<()> {
    let stdin = std::io::BufReader::new(std::io::stdin());
    let stdout = std::io::stdout().lock();
    gobang::protocol::gomocup::run(stdin, stdout)?;
    Ok(())
}
