//! A small reproducible random number generator (xorshift64*) for the tools that need chance:
//! SPSA's perturbation signs (`tune`) and random openings (`random-openings`). Runs must be
//! repeatable from a seed, which is all they ask of it.

/// xorshift64*, seeded so that nearby seeds give unrelated streams.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// +1.0 or -1.0, each half the time.
    pub fn sign(&mut self) -> f64 {
        if self.next_u64() >> 63 == 0 {
            1.0
        } else {
            -1.0
        }
    }

    /// A number in `0..n` (`n` > 0), from the high bits (the low bits of xorshift are weaker).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_are_balanced_and_reproducible() {
        let signs: Vec<f64> = {
            let mut rng = Rng::new(7);
            (0..1000).map(|_| rng.sign()).collect()
        };
        let mut again = Rng::new(7);
        assert!(signs.iter().all(|&s| s == again.sign()));
        let plus = signs.iter().filter(|&&s| s > 0.0).count();
        assert!((400..600).contains(&plus), "{plus}");
    }

    #[test]
    fn below_stays_in_range_and_reaches_every_value() {
        let mut rng = Rng::new(3);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[rng.below(7)] += 1;
        }
        assert!(
            seen.iter().all(|&count| (800..1200).contains(&count)),
            "{seen:?}"
        );
    }
}
