//! Numbers as the viewer writes them: byte sizes with a unit that fits and counted nouns with
//! the right number. The page's script (`html/page.js`, `bytes` and `plural`) follows the same
//! rules, and the browser test checks the two agree.
//!
//! Byte sizes: below 1 KiB the exact count (`16 B`, `1023 B`); above, one decimal of the
//! largest binary unit that keeps the value below 1024 after rounding (`1.0 KiB`,
//! `12.3 MiB`, `1.5 GiB`), rounding half up in integer arithmetic, so the page's floating
//! point gives the same digits. Cost: O(1).

/// Binary units above bytes.
const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];

/// `bytes` with a unit that fits: `256 B`, `4.0 KiB`, `12.3 MiB`, `1.2 GiB`.
pub fn bytes(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let value = u128::from(bytes);
    let mut unit: u128 = 1024;
    for (i, name) in UNITS.iter().enumerate() {
        // Tenths of this unit, rounded half up.
        let tenths = (value * 20 + unit) / (2 * unit);
        if tenths < 10240 || i == UNITS.len() - 1 {
            return format!("{}.{} {name}", tenths / 10, tenths % 10);
        }
        unit *= 1024;
    }
    unreachable!("the last unit always returns")
}

/// A rate of `bytes` per frame at `fps` frames per second: `bytes(bytes * fps) + "/s"`.
pub fn rate(bytes_per_frame: u64, fps: u64) -> String {
    format!("{}/s", bytes(bytes_per_frame.saturating_mul(fps)))
}

/// `n` and the noun in the number `n` asks for: `1 break`, `0 breaks`, `2 subpasses`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The cases the Rust and the page's formatter are checked against: (bytes, text).
pub const BYTES_CASES: &[(u64, &str)] = &[
    (0, "0 B"),
    (16, "16 B"),
    (256, "256 B"),
    (1023, "1023 B"),
    (1024, "1.0 KiB"),
    (1075, "1.0 KiB"),
    (1076, "1.1 KiB"),
    (1280, "1.3 KiB"),
    (4096, "4.0 KiB"),
    (16384, "16.0 KiB"),
    (1_048_575, "1.0 MiB"),
    (1_048_576, "1.0 MiB"),
    (2_073_600, "2.0 MiB"),
    (8_294_400, "7.9 MiB"),
    (12_897_485, "12.3 MiB"),
    (1_073_741_823, "1.0 GiB"),
    (1_610_612_736, "1.5 GiB"),
    (1 << 40, "1.0 TiB"),
    (1 << 48, "256.0 TiB"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_pick_a_unit_that_fits() {
        for &(b, text) in BYTES_CASES {
            assert_eq!(bytes(b), text, "{b} bytes");
        }
    }

    #[test]
    fn bytes_never_show_a_zero_for_a_nonzero_size_or_four_digits_of_a_unit() {
        for b in (0..64)
            .map(|s| 1u64 << s)
            .chain([3, 1000, 1025, 999_999, u64::MAX])
        {
            let s = bytes(b);
            let (num, unit) = s.split_once(' ').expect("number and unit");
            let v: f64 = num.parse().expect("a number");
            assert!(b == 0 || v > 0.0, "{b}: {s}");
            if unit != "PiB" {
                assert!(v < 1024.0, "{b}: {s}");
            }
            assert!(unit == "B" || num.contains('.'), "{b}: {s}");
        }
    }

    #[test]
    fn rate_is_bytes_per_second() {
        assert_eq!(rate(16, 60), "960 B/s");
        assert_eq!(rate(8_294_400, 60), "474.6 MiB/s");
    }

    #[test]
    fn plural_agrees_with_the_count() {
        assert_eq!(plural(0, "break", "breaks"), "0 breaks");
        assert_eq!(plural(1, "break", "breaks"), "1 break");
        assert_eq!(plural(2, "subpass", "subpasses"), "2 subpasses");
        assert_eq!(plural(1, "subpass", "subpasses"), "1 subpass");
    }
}
