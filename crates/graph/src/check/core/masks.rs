//! Stage and access mask arithmetic as the checker reads it: `ALL_COMMANDS` covers every
//! stage, `MEMORY_READ`/`MEMORY_WRITE` cover every read/write access; otherwise a mask covers
//! exactly the flags it names (no "logically earlier/later stage" widening, which the
//! compiler never relies on).

use crate::sync::{AccessMask, StageMask};

/// True when `mask` includes every stage of `need`.
pub(crate) fn stages_cover(mask: StageMask, need: StageMask) -> bool {
    mask.contains(StageMask::ALL_COMMANDS) || mask.contains(need)
}

/// True when two stage masks share a stage: the condition for execution dependencies to
/// chain (second scope of the first meets first scope of the second).
pub(crate) fn stages_meet(a: StageMask, b: StageMask) -> bool {
    if a.is_empty() || b.is_empty() {
        return false;
    }
    a.contains(StageMask::ALL_COMMANDS) || b.contains(StageMask::ALL_COMMANDS) || a.intersects(b)
}

/// True when `mask` includes every access of `need`.
pub(crate) fn access_cover(mask: AccessMask, need: AccessMask) -> bool {
    let writes = need & AccessMask::WRITES;
    let reads = need - AccessMask::WRITES;
    let writes_ok = mask.contains(AccessMask::MEMORY_WRITE) || mask.contains(writes);
    let reads_ok = mask.contains(AccessMask::MEMORY_READ) || mask.contains(reads);
    writes_ok && reads_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_commands_and_memory_flags_cover_everything() {
        assert!(stages_cover(
            StageMask::ALL_COMMANDS,
            StageMask::COMPUTE_SHADER | StageMask::DRAW_INDIRECT
        ));
        assert!(!stages_cover(
            StageMask::COMPUTE_SHADER,
            StageMask::COMPUTE_SHADER | StageMask::DRAW_INDIRECT
        ));
        assert!(stages_meet(
            StageMask::ALL_COMMANDS,
            StageMask::FRAGMENT_SHADER
        ));
        assert!(!stages_meet(
            StageMask::COMPUTE_SHADER,
            StageMask::FRAGMENT_SHADER
        ));
        assert!(!stages_meet(StageMask::empty(), StageMask::ALL_COMMANDS));
        let rw = AccessMask::SHADER_STORAGE_READ | AccessMask::SHADER_STORAGE_WRITE;
        assert!(access_cover(
            AccessMask::MEMORY_READ | AccessMask::MEMORY_WRITE,
            rw
        ));
        assert!(!access_cover(AccessMask::MEMORY_READ, rw));
        assert!(!access_cover(AccessMask::SHADER_STORAGE_WRITE, rw));
        assert!(access_cover(rw, AccessMask::SHADER_STORAGE_WRITE));
    }
}
