//! The offers of the `book` flow, derived from the city the same way by every server and the
//! client, so the client checks what it is shown without trusting the server.
//!
//! `h` is FNV-1a (32 bit) of the city; offer `i` (0..5) has the id `slug-{i+1}{hex3}` with
//! `hex3 = (h >> 4i) & 0xfff`, and the price `80 + ((h >> (5i + 2)) & 0x1ff)`, where `slug` is the
//! city's ASCII letters and digits, lower-cased.

/// One offer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Offer {
    /// What the user picks.
    pub id: String,
    /// Its price.
    pub price: u32,
}

/// The cities the load client books, in turn.
pub const CITIES: &[&str] = &[
    "Lisbon",
    "Paris",
    "Berlin",
    "Madrid",
    "Rome",
    "Vienna",
    "Prague",
    "Oslo",
    "Dublin",
    "Athens",
    "Warsaw",
    "Helsinki",
    "Zurich",
    "Brussels",
    "Copenhagen",
    "Amsterdam",
];

/// The five offers for `city`.
pub fn offers(city: &str) -> Vec<Offer> {
    let hash = city.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    });
    let slug: String = city
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    (0..5u32)
        .map(|i| Offer {
            id: format!("{slug}-{}{:03x}", i + 1, (hash >> (4 * i)) & 0xfff),
            price: 80 + ((hash >> (5 * i + 2)) & 0x1ff),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn offers_are_stable() {
        let offers = super::offers("Lisbon");
        assert_eq!(offers.len(), 5);
        assert!(offers.iter().all(|offer| offer.id.starts_with("lisbon-")));
        assert_eq!(offers, super::offers("Lisbon"));
    }
}
