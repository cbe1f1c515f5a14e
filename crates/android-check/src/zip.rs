//! Where a zip (an APK) keeps an entry's data: enough of the format to check that the
//! native library is stored uncompressed at a page-aligned offset, which is what lets
//! Android map it straight from the APK.

use anyhow::{bail, Context, Result};

/// One entry, as the central directory and its local header give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    /// 0: stored; 8: deflated.
    pub method: u16,
    /// Where the entry's data starts in the file.
    pub data_offset: u64,
    pub compressed_size: u64,
    pub size: u64,
}

fn u16_at(d: &[u8], at: usize) -> Result<u16> {
    let b = d.get(at..at + 2).context("zip truncated")?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(d: &[u8], at: usize) -> Result<u32> {
    let b = d.get(at..at + 4).context("zip truncated")?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Every entry of the zip in `data`.
pub fn entries(data: &[u8]) -> Result<Vec<Entry>> {
    // The end-of-central-directory record: the last 22 bytes plus a comment of up to 64 KiB.
    let lowest = data.len().saturating_sub(22 + 0xffff);
    let eocd = (lowest..=data.len().saturating_sub(22))
        .rev()
        .find(|&i| u32_at(data, i).ok() == Some(0x0605_4b50))
        .context("no end-of-central-directory record: not a zip")?;
    let count = u16_at(data, eocd + 10)? as usize;
    let mut at = u32_at(data, eocd + 16)? as usize;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        if u32_at(data, at)? != 0x0201_4b50 {
            bail!("bad central directory entry at {at:#x}");
        }
        let method = u16_at(data, at + 10)?;
        let compressed_size = u32_at(data, at + 20)? as u64;
        let size = u32_at(data, at + 24)? as u64;
        let name_len = u16_at(data, at + 28)? as usize;
        let extra_len = u16_at(data, at + 30)? as usize;
        let comment_len = u16_at(data, at + 32)? as usize;
        let local = u32_at(data, at + 42)? as usize;
        let name = data
            .get(at + 46..at + 46 + name_len)
            .context("zip truncated")?;
        let name = String::from_utf8_lossy(name).into_owned();
        if u32_at(data, local)? != 0x0403_4b50 {
            bail!("bad local header for {name} at {local:#x}");
        }
        let data_offset =
            (local + 30 + u16_at(data, local + 26)? as usize + u16_at(data, local + 28)? as usize)
                as u64;
        out.push(Entry {
            name,
            method,
            data_offset,
            compressed_size,
            size,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    Ok(out)
}

/// Checks that `name` is in the zip, stored (not compressed), at a multiple of `align`.
pub fn check_stored_aligned(data: &[u8], name: &str, align: u64) -> Result<Entry> {
    let all = entries(data)?;
    let Some(e) = all.into_iter().find(|e| e.name == name) else {
        bail!("{name} is not in the archive");
    };
    if e.method != 0 {
        bail!(
            "{name} is compressed (method {}); it must be stored",
            e.method
        );
    }
    if e.data_offset % align != 0 {
        bail!(
            "{name}'s data starts at {:#x}, not a multiple of {align:#x}",
            e.data_offset
        );
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip of stored entries, each's data placed after `pad` extra-field bytes.
    fn zip(files: &[(&str, &[u8], usize)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, body, pad) in files {
            let local = out.len() as u32;
            out.extend(0x0403_4b50u32.to_le_bytes());
            out.extend([20, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // version, flags, method 0, time, date
            out.extend(0u32.to_le_bytes()); // crc (unchecked here)
            out.extend((body.len() as u32).to_le_bytes());
            out.extend((body.len() as u32).to_le_bytes());
            out.extend((name.len() as u16).to_le_bytes());
            out.extend((*pad as u16).to_le_bytes());
            out.extend(name.as_bytes());
            out.resize(out.len() + *pad, 0);
            out.extend(*body);
            central.extend(0x0201_4b50u32.to_le_bytes());
            central.extend([20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            central.extend(0u32.to_le_bytes());
            central.extend((body.len() as u32).to_le_bytes());
            central.extend((body.len() as u32).to_le_bytes());
            central.extend((name.len() as u16).to_le_bytes());
            central.extend([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // extra, comment, disk, attrs
            central.extend(local.to_le_bytes());
            central.extend(name.as_bytes());
        }
        let cd_offset = out.len() as u32;
        out.extend(&central);
        out.extend(0x0605_4b50u32.to_le_bytes());
        out.extend([0, 0, 0, 0]);
        out.extend((files.len() as u16).to_le_bytes());
        out.extend((files.len() as u16).to_le_bytes());
        out.extend((central.len() as u32).to_le_bytes());
        out.extend(cd_offset.to_le_bytes());
        out.extend([0, 0]);
        out
    }

    #[test]
    fn finds_the_data_offset_and_checks_alignment() {
        // First entry: 30 + 5 + 0 bytes header, 3 bytes of data = 38; the second's local
        // header is at 38, its data at 38 + 30 + 6 + pad; pad 58 puts it at 132.
        let z = zip(&[("a.txt", b"abc", 0), ("lib.so", b"\x7fELF", 58)]);
        let e = entries(&z).unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].data_offset, 35);
        assert_eq!(e[1].data_offset, 132);
        assert_eq!(&z[132..136], b"\x7fELF");
        assert!(check_stored_aligned(&z, "lib.so", 4).is_ok());
        let err = check_stored_aligned(&z, "lib.so", 16384)
            .unwrap_err()
            .to_string();
        assert!(err.contains("0x84, not a multiple of 0x4000"), "{err}");
        assert!(check_stored_aligned(&z, "missing.so", 4).is_err());
        assert!(entries(b"not a zip at all, just some bytes").is_err());
    }
}
