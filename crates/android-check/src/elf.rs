//! What the checks need from a linked shared library, read from its ELF headers, dynamic
//! section and dynamic symbol table (with their version nodes).

use anyhow::{bail, Context, Result};
use object::elf;
use object::read::elf::{Dyn, FileHeader, ProgramHeader, Sym};
use object::Endianness;

/// An undefined dynamic symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undefined {
    pub name: String,
    pub weak: bool,
    /// The version node the reference needs (`LIBC`, `LIBC_N`, ...), if any.
    pub version: Option<String>,
}

/// A `PT_LOAD` segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Load {
    pub offset: u64,
    pub vaddr: u64,
    pub align: u64,
}

/// The facts of one shared library.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub machine: u16,
    pub soname: Option<String>,
    pub needed: Vec<String>,
    pub undefined: Vec<Undefined>,
    /// Defined global or weak symbols with default or protected visibility: the exports.
    pub exports: Vec<String>,
    pub loads: Vec<Load>,
}

/// Reads the facts of a 32- or 64-bit ELF shared library.
pub fn read(data: &[u8]) -> Result<Facts> {
    match object::FileKind::parse(data).context("not an object file")? {
        object::FileKind::Elf32 => facts::<elf::FileHeader32<Endianness>>(data),
        object::FileKind::Elf64 => facts::<elf::FileHeader64<Endianness>>(data),
        k => bail!("not an ELF file ({k:?})"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn facts<H: FileHeader<Endian = Endianness>>(data: &[u8]) -> Result<Facts> {
    let header = H::parse(data).context("bad ELF header")?;
    let endian = header.endian().context("bad ELF byte order")?;
    if header.e_type(endian) != elf::ET_DYN {
        bail!("not a shared library (e_type {})", header.e_type(endian));
    }
    let mut facts = Facts {
        machine: header.e_machine(endian),
        ..Facts::default()
    };
    for ph in header.program_headers(endian, data)? {
        if ph.p_type(endian) == elf::PT_LOAD {
            facts.loads.push(Load {
                offset: ph.p_offset(endian).into(),
                vaddr: ph.p_vaddr(endian).into(),
                align: ph.p_align(endian).into(),
            });
        }
    }
    let sections = header.sections(endian, data)?;
    if let Some((entries, link)) = sections.dynamic(endian, data)? {
        let strings = sections.strings(endian, data, link)?;
        for d in entries {
            let tag: i64 = d.d_tag(endian).into();
            let value = || -> Result<String> {
                Ok(text(
                    d.string(endian, strings).context("bad dynamic string")?,
                ))
            };
            match tag {
                elf::DT_NEEDED => facts.needed.push(value()?),
                elf::DT_SONAME => facts.soname = Some(value()?),
                _ => {}
            }
        }
    }
    let symbols = sections.symbols(endian, data, elf::SHT_DYNSYM)?;
    let versions = sections.versions(endian, data)?;
    for (index, sym) in symbols.enumerate() {
        if index.0 == 0 {
            continue;
        }
        let name = text(sym.name(endian, symbols.strings())?);
        let bind = sym.st_bind();
        if bind != elf::STB_GLOBAL && bind != elf::STB_WEAK {
            continue;
        }
        if sym.is_undefined(endian) {
            let version = match &versions {
                Some(v) => {
                    let vi = v.version_index(endian, index);
                    v.version(vi)?.map(|ver| text(ver.name()))
                }
                None => None,
            };
            facts.undefined.push(Undefined {
                name,
                weak: bind == elf::STB_WEAK,
                version,
            });
        } else if matches!(sym.st_visibility(), elf::STV_DEFAULT | elf::STV_PROTECTED) {
            facts.exports.push(name);
        }
    }
    Ok(facts)
}
