//! What kind of GPU a device is, from its identity: the profile whose preset the frame
//! takes (`desktop`, `mali`, `adreno`) and the colour bits per pixel its tile memory holds.
//!
//! Vulkan reports neither. The PCI vendor ID names the vendor (Arm `0x13B5`, Qualcomm
//! `0x5143`), the device name the Mali architecture, and a `LAZILY_ALLOCATED` memory type
//! says the device renders in tiles (memoryless attachments only exist there). The tile
//! budget follows Arm's published figures for the architecture:
//!
//! - Valhall and later (Mali-G57, G68, G77, G78, G310 and every G-number with three
//!   digits, Immortalis): 256 bits of colour per pixel at full tile size.
//! - Bifrost (Mali-G31, G51, G52, G71, G72, G76) and Midgard (Mali-T...): 128 bits.
//! - An Arm GPU whose name matches none of these: 128 bits, the smaller figure, since a
//!   budget set too low only costs a merge, one set too high spills tiles to memory.
//! - Adreno bins adapt their size to the attachments, so there is no per-pixel budget (0).
//!
//! A device of another vendor with lazily allocated memory (PowerVR, Apple through
//! MoltenVK) is a tiler of unknown budget: it takes the `adreno` profile, whose facts are
//! exactly that (memoryless attachments, no budget). Everything else is `desktop`.
//!
//! Pure functions of the identity: no Vulkan calls, so every rule is unit-tested.

/// PCI vendor ID of Arm (Mali, Immortalis).
pub const VENDOR_ARM: u32 = 0x13B5;
/// PCI vendor ID of Qualcomm (Adreno).
pub const VENDOR_QUALCOMM: u32 = 0x5143;

/// Colour bits per pixel the tile memory of Valhall and later Mali holds.
pub const VALHALL_TILE_BITS: u32 = 256;
/// Colour bits per pixel the tile memory of Bifrost and Midgard Mali holds.
pub const BIFROST_TILE_BITS: u32 = 128;

/// Mali architectures, as far as tile memory goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaliArch {
    /// Mali-T6xx to T8xx.
    Midgard,
    /// Mali-G31, G51, G52, G71, G72, G76.
    Bifrost,
    /// Mali-G57, G68, G77, G78 and the three-digit G-series, Immortalis.
    Valhall,
    /// An Arm GPU whose name says no known architecture.
    Unknown,
}

impl MaliArch {
    /// The architecture a device name says (`"Mali-G710"`, `"Mali-G76 MC4"`,
    /// `"Immortalis-G715"`), case-insensitive.
    pub fn of_name(name: &str) -> MaliArch {
        let lower = name.to_ascii_lowercase();
        if lower.contains("immortalis") {
            return MaliArch::Valhall;
        }
        let Some(at) = lower.find("mali-") else {
            return MaliArch::Unknown;
        };
        let model = &lower[at + "mali-".len()..];
        let digits: String = model
            .chars()
            .skip(1)
            .take_while(char::is_ascii_digit)
            .collect();
        match (model.chars().next(), digits.len()) {
            (Some('t'), 3) => MaliArch::Midgard,
            (Some('g'), 2) if ["31", "51", "52", "71", "72", "76"].contains(&digits.as_str()) => {
                MaliArch::Bifrost
            }
            (Some('g'), 2) if ["57", "68", "77", "78"].contains(&digits.as_str()) => {
                MaliArch::Valhall
            }
            (Some('g'), 3..) => MaliArch::Valhall,
            _ => MaliArch::Unknown,
        }
    }

    /// Colour bits per pixel of its tile memory.
    pub fn tile_bits_per_pixel(self) -> u32 {
        match self {
            MaliArch::Valhall => VALHALL_TILE_BITS,
            MaliArch::Bifrost | MaliArch::Midgard | MaliArch::Unknown => BIFROST_TILE_BITS,
        }
    }

    fn name(self) -> &'static str {
        match self {
            MaliArch::Midgard => "Midgard",
            MaliArch::Bifrost => "Bifrost",
            MaliArch::Valhall => "Valhall",
            MaliArch::Unknown => "an unknown Mali architecture",
        }
    }
}

/// What the device is, for planning and for the frame's preset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceClass {
    /// The profile whose preset applies: `desktop`, `mali` or `adreno`.
    pub profile: &'static str,
    /// Colour bits per pixel its tile memory holds; 0: no budget.
    pub tile_bits_per_pixel: u32,
    /// Why, in words (for the log and the overlay).
    pub reason: String,
}

/// Classifies a device by its PCI vendor ID, its name and whether it has a lazily
/// allocated memory type.
pub fn classify(vendor_id: u32, device_name: &str, lazily_allocated: bool) -> DeviceClass {
    match vendor_id {
        VENDOR_ARM => {
            let arch = MaliArch::of_name(device_name);
            let bits = arch.tile_bits_per_pixel();
            DeviceClass {
                profile: "mali",
                tile_bits_per_pixel: bits,
                reason: format!(
                    "an Arm GPU ({}): a tiler, {bits} bits of colour per pixel in tile memory",
                    arch.name()
                ),
            }
        }
        VENDOR_QUALCOMM => DeviceClass {
            profile: "adreno",
            tile_bits_per_pixel: 0,
            reason: "a Qualcomm Adreno: a tiler whose bins fit the attachments (no per-pixel \
                     budget)"
                .into(),
        },
        _ if lazily_allocated => DeviceClass {
            profile: "adreno",
            tile_bits_per_pixel: 0,
            reason: format!(
                "vendor {vendor_id:#06x} with lazily allocated memory: a tiler of unknown \
                 budget (the adreno profile: memoryless attachments, no per-pixel budget)"
            ),
        },
        _ => DeviceClass {
            profile: "desktop",
            tile_bits_per_pixel: 0,
            reason: format!("vendor {vendor_id:#06x} without lazily allocated memory: not a tiler"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mali_names_give_their_architecture() {
        for (name, arch) in [
            ("Mali-G710", MaliArch::Valhall),
            ("Mali-G715-Immortalis MC11", MaliArch::Valhall),
            ("Immortalis-G720", MaliArch::Valhall),
            ("Mali-G78 MP20", MaliArch::Valhall),
            ("Mali-G57 MC2", MaliArch::Valhall),
            ("Mali-G310", MaliArch::Valhall),
            ("Mali-G610 MC6", MaliArch::Valhall),
            ("Mali-G76 MP12", MaliArch::Bifrost),
            ("Mali-G52 MC2", MaliArch::Bifrost),
            ("mali-g31", MaliArch::Bifrost),
            ("Mali-G72", MaliArch::Bifrost),
            ("Mali-T880 MP12", MaliArch::Midgard),
            ("Mali-T760", MaliArch::Midgard),
            ("Mali-G99", MaliArch::Unknown),
            ("Arm GPU", MaliArch::Unknown),
            ("Mali-", MaliArch::Unknown),
        ] {
            assert_eq!(MaliArch::of_name(name), arch, "{name}");
        }
    }

    #[test]
    fn arm_devices_are_mali_with_the_architecture_budget() {
        let valhall = classify(VENDOR_ARM, "Mali-G710 MC10", true);
        assert_eq!(valhall.profile, "mali");
        assert_eq!(valhall.tile_bits_per_pixel, 256);
        assert!(valhall.reason.contains("Valhall"), "{}", valhall.reason);
        let bifrost = classify(VENDOR_ARM, "Mali-G76 MP12", true);
        assert_eq!(bifrost.tile_bits_per_pixel, 128);
        assert!(bifrost.reason.contains("Bifrost"), "{}", bifrost.reason);
        // Unknown Arm names take the smaller budget.
        assert_eq!(
            classify(VENDOR_ARM, "Arm GPU", false).tile_bits_per_pixel,
            128
        );
    }

    #[test]
    fn qualcomm_is_adreno_without_a_budget() {
        let c = classify(VENDOR_QUALCOMM, "Adreno (TM) 740", true);
        assert_eq!((c.profile, c.tile_bits_per_pixel), ("adreno", 0));
    }

    #[test]
    fn lazily_allocated_memory_decides_for_other_vendors() {
        // PowerVR with a lazily allocated type: a tiler of unknown budget.
        let c = classify(0x1010, "PowerVR B-Series BXM-8-256", true);
        assert_eq!((c.profile, c.tile_bits_per_pixel), ("adreno", 0));
        // lavapipe (Mesa's vendor ID), NVIDIA, AMD: desktop.
        for (vendor, name) in [
            (0x10005, "llvmpipe (LLVM 15.0.6, 256 bits)"),
            (0x10DE, "NVIDIA H200"),
            (0x1002, "AMD Radeon RX 7900 XTX"),
        ] {
            let c = classify(vendor, name, false);
            assert_eq!((c.profile, c.tile_bits_per_pixel), ("desktop", 0), "{name}");
        }
    }
}
