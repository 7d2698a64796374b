//! Every read and write knit makes in a workspace goes through [`Confined`], and every
//! file knit keeps for itself (caches, state) through the `own_*` functions below.
//!
//! The workspace is hostile (SECURITY.md): a cloned pull request may hold symlinks out of
//! the root, FIFOs, device links, read-only or hard-linked docs, or a planted
//! `<doc>.knit-tmp` symlink. So:
//! - a workspace path is relative, has no `..`, and its real location (symlinks resolved)
//!   lies inside the root, or it is refused before anything is opened;
//! - only regular files are read, opened non-blocking (a FIFO never blocks) and read at
//!   most `max + 1` bytes (a device never streams forever);
//! - a doc is replaced only through [`Confined::replace`]: a randomly named temp file
//!   created exclusively beside it (never following a symlink), the doc's permissions and
//!   ownership carried over, file and folder fsynced, and only if the doc is still exactly
//!   what was read (an editor's save in between is never lost). Symlinked, hard-linked,
//!   read-only and non-regular docs are refused with a message.

use knit_anchors::source::{bytes_to_text, ReadError};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

/// Default per-file read limit (DESIGN 1.4).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Size and modification time of a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    pub size: u64,
    pub mtime_ms: u64,
}

/// Why a doc could not be replaced. Nothing was written when this is returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The path, or the folder it is in, resolves outside the workspace.
    Outside,
    /// The doc is a symbolic link: knit never writes through one.
    Symlink,
    /// Not a regular file (a folder, FIFO, device…).
    NotRegular,
    ReadOnly,
    /// Replacing the doc would break its other hard links.
    HardLinked(u64),
    /// The doc changed on disk after knit read it.
    Changed,
    Io(String),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Outside => write!(f, "the path resolves outside the workspace; nothing was written"),
            WriteError::Symlink => write!(f, "it is a symbolic link; knit never writes through a link (edit the file it points to)"),
            WriteError::NotRegular => write!(f, "it is not a regular file; nothing was written"),
            WriteError::ReadOnly => write!(f, "it is read-only; nothing was written"),
            WriteError::HardLinked(n) => write!(f, "it has {n} hard links and replacing it would break them; nothing was written"),
            WriteError::Changed => write!(f, "it changed on disk while knit was working (an editor save?); nothing was written — run the command again"),
            WriteError::Io(e) => write!(f, "{e}; nothing was written"),
        }
    }
}

impl std::error::Error for WriteError {}

/// A doc as read for editing: its bytes and the identity of the file they came from,
/// for the optimistic check in [`Confined::replace`].
#[derive(Debug, Clone)]
pub struct EditSnapshot {
    rel: String,
    /// The doc's real path (its folder canonical, the file itself not a link).
    path: PathBuf,
    pub bytes: Vec<u8>,
    identity: Identity,
}

impl EditSnapshot {
    pub fn rel(&self) -> &str {
        &self.rel
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    mode: u32,
    uid: u32,
    gid: u32,
    nlink: u64,
}

#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity {
        dev: meta.dev(),
        ino: meta.ino(),
        size: meta.size(),
        mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
        mode: meta.mode(),
        uid: meta.uid(),
        gid: meta.gid(),
        nlink: meta.nlink(),
    }
}

#[cfg(not(unix))]
fn identity(meta: &fs::Metadata) -> Identity {
    let mtime_ns = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i128).unwrap_or(0);
    Identity { dev: 0, ino: 0, size: meta.len(), mtime_ns, mode: if meta.permissions().readonly() { 0o444 } else { 0o644 }, uid: 0, gid: 0, nlink: 1 }
}

/// Opens `path` for reading without blocking on FIFOs and without following a final
/// symlink (`follow` false), then insists on a regular file.
fn open_regular(path: &Path, follow: bool) -> Result<(File, fs::Metadata), ReadError> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
        if !follow {
            flags |= libc::O_NOFOLLOW;
        }
        opts.custom_flags(flags);
    }
    let file = opts.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::Missing,
        _ if e.raw_os_error() == Some(libc_eloop()) => ReadError::Io("it is a symbolic link".into()),
        _ => ReadError::Io(e.to_string()),
    })?;
    let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
    if !meta.is_file() {
        return Err(ReadError::Io("not a regular file".into()));
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn libc_eloop() -> i32 {
    libc::ELOOP
}
#[cfg(not(unix))]
fn libc_eloop() -> i32 {
    -1
}

/// Reads at most `max` bytes of an open regular file; more is `TooLarge`.
fn read_bounded(file: File, meta: &fs::Metadata, max: u64) -> Result<Vec<u8>, ReadError> {
    if meta.len() > max {
        return Err(ReadError::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte more than allowed: a file that grew since the stat is still caught.
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

fn mtime_ms(meta: &fs::Metadata) -> u64 {
    meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// A workspace root and the rules for touching anything under it.
#[derive(Clone, Debug)]
pub struct Confined {
    root: PathBuf,
}

impl Confined {
    /// `root` is canonicalised once; every check compares real paths against it.
    pub fn new(root: &Path) -> Confined {
        Confined { root: root.canonicalize().unwrap_or_else(|_| root.to_path_buf()) }
    }

    /// For a root that is already canonical (no file-system access).
    pub fn new_unchecked(root: &Path) -> Confined {
        Confined { root: root.to_path_buf() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The lexical form of `rel` under the root: relative, no `..`, no prefix.
    fn lexical(&self, rel: &str) -> Result<PathBuf, ReadError> {
        let p = Path::new(rel);
        if rel.is_empty() || p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir | Component::Prefix(_) | Component::RootDir)) {
            return Err(ReadError::Outside);
        }
        Ok(self.root.join(p))
    }

    /// The real path of a workspace-relative path, refusing any that leaves the root
    /// through `..`, an absolute form or a symlink. A path that does not exist is
    /// returned lexically (callers then find nothing there).
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, ReadError> {
        let abs = self.lexical(rel)?;
        match abs.canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(_) => Err(ReadError::Outside),
            Err(_) => {
                // Missing file: its folder must still not lead outside.
                if let Some(parent) = abs.parent() {
                    if let Ok(real_parent) = parent.canonicalize() {
                        if !real_parent.starts_with(&self.root) {
                            return Err(ReadError::Outside);
                        }
                    }
                }
                Ok(abs)
            }
        }
    }

    /// Workspace-relative `/`-separated form of an absolute or cwd-relative path that
    /// lies (lexically) inside the root.
    pub fn relative(&self, p: &Path) -> Option<String> {
        let abs = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().ok()?.join(p) };
        let abs = normalize(&abs);
        let rel = abs.strip_prefix(&self.root).ok()?;
        Some(rel.to_string_lossy().replace('\\', "/"))
    }

    /// The bytes of a regular file inside the workspace, at most `max`.
    pub fn read_bytes(&self, rel: &str, max: u64) -> Result<Vec<u8>, ReadError> {
        let real = self.resolve(rel)?;
        let (file, meta) = open_regular(&real, false)?;
        read_bounded(file, &meta, max)
    }

    /// A regular text file inside the workspace (UTF-8, no NUL), at most `max` bytes.
    pub fn read_text(&self, rel: &str, max: u64) -> Result<Arc<str>, ReadError> {
        bytes_to_text(self.read_bytes(rel, max)?)
    }

    /// Size and mtime of a regular file inside the workspace (symlinks inside the root
    /// are followed; anything leading outside is `None`).
    pub fn stat(&self, rel: &str) -> Option<FileStat> {
        let real = self.resolve(rel).ok()?;
        let meta = fs::metadata(&real).ok()?;
        meta.is_file().then(|| FileStat { size: meta.len(), mtime_ms: mtime_ms(&meta) })
    }

    /// Size and mtime of a regular file that is not itself a symlink (as the walk sees
    /// files), in a folder inside the root.
    pub fn lstat(&self, rel: &str) -> Option<FileStat> {
        let abs = self.lexical(rel).ok()?;
        let real_parent = abs.parent()?.canonicalize().ok()?;
        if !real_parent.starts_with(&self.root) {
            return None;
        }
        let meta = fs::symlink_metadata(real_parent.join(abs.file_name()?)).ok()?;
        meta.is_file().then(|| FileStat { size: meta.len(), mtime_ms: mtime_ms(&meta) })
    }

    /// Whether a file or folder exists at `rel` inside the workspace.
    pub fn exists(&self, rel: &str) -> bool {
        self.resolve(rel).map(|p| p.exists()).unwrap_or(false)
    }

    /// Reads a doc for editing: it must be a regular file, not a symlink, in a folder
    /// inside the root.
    pub fn read_for_edit(&self, rel: &str, max: u64) -> Result<EditSnapshot, WriteError> {
        let path = self.edit_path(rel)?;
        let (file, meta) = open_regular(&path, false).map_err(|e| match e {
            ReadError::Missing => WriteError::Io("file not found".into()),
            ReadError::Io(m) if m.contains("symbolic link") => WriteError::Symlink,
            ReadError::Io(m) if m.contains("not a regular file") => WriteError::NotRegular,
            other => WriteError::Io(other.to_string()),
        })?;
        let identity = identity(&meta);
        let bytes = read_bounded(file, &meta, max).map_err(|e| WriteError::Io(e.to_string()))?;
        Ok(EditSnapshot { rel: rel.to_string(), path, bytes, identity })
    }

    /// The real path a doc edit would touch: its folder canonical and inside the root,
    /// the doc itself a regular file and not a link.
    fn edit_path(&self, rel: &str) -> Result<PathBuf, WriteError> {
        let abs = self.lexical(rel).map_err(|_| WriteError::Outside)?;
        let name = abs.file_name().ok_or(WriteError::Outside)?.to_os_string();
        let parent = abs.parent().ok_or(WriteError::Outside)?;
        let real_parent = parent.canonicalize().map_err(|e| WriteError::Io(format!("{}: {e}", parent.display())))?;
        if !real_parent.starts_with(&self.root) {
            return Err(WriteError::Outside);
        }
        let path = real_parent.join(name);
        let meta = fs::symlink_metadata(&path).map_err(|e| WriteError::Io(e.to_string()))?;
        if meta.file_type().is_symlink() {
            return Err(WriteError::Symlink);
        }
        if !meta.is_file() {
            return Err(WriteError::NotRegular);
        }
        Ok(path)
    }

    /// Replaces the doc read as `snap` with `new_bytes`, atomically, or explains why not.
    /// Nothing is written when an error is returned.
    pub fn replace(&self, snap: &EditSnapshot, new_bytes: &[u8]) -> Result<(), WriteError> {
        let path = self.edit_path(&snap.rel)?;
        if path != snap.path {
            return Err(WriteError::Changed);
        }
        let before = snap.identity;
        if before.mode & 0o200 == 0 {
            return Err(WriteError::ReadOnly);
        }
        if before.nlink > 1 {
            return Err(WriteError::HardLinked(before.nlink));
        }
        self.unchanged_since(snap)?;
        let dir = path.parent().ok_or(WriteError::Outside)?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // Random name, created with O_EXCL (never follows a planted symlink), mode 0600
        // until the doc's own mode is applied below.
        let mut tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".knit-tmp")
            .rand_bytes(10)
            .tempfile_in(dir)
            .map_err(|e| WriteError::Io(format!("creating a temporary file in {}: {e}", dir.display())))?;
        let io = |e: std::io::Error| WriteError::Io(format!("writing {}: {e}", tmp_display(dir)));
        tmp.as_file_mut().write_all(new_bytes).map_err(io)?;
        carry_over_metadata(tmp.as_file(), &before).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        // The optimistic check, as late as possible: the doc is still what was read.
        self.unchanged_since(snap)?;
        tmp.persist(&path).map_err(|e| WriteError::Io(format!("replacing {}: {}", path.display(), e.error)))?;
        sync_dir(dir);
        Ok(())
    }

    /// The doc at `snap`'s path is the same file with the same bytes.
    fn unchanged_since(&self, snap: &EditSnapshot) -> Result<(), WriteError> {
        let (file, meta) = open_regular(&snap.path, false).map_err(|_| WriteError::Changed)?;
        let now = identity(&meta);
        if (now.dev, now.ino, now.size, now.mtime_ns) != (snap.identity.dev, snap.identity.ino, snap.identity.size, snap.identity.mtime_ns) {
            return Err(WriteError::Changed);
        }
        let bytes = read_bounded(file, &meta, snap.bytes.len() as u64).map_err(|_| WriteError::Changed)?;
        if bytes != snap.bytes {
            return Err(WriteError::Changed);
        }
        Ok(())
    }
}

fn tmp_display(dir: &Path) -> String {
    format!("a temporary file in {}", dir.display())
}

#[cfg(unix)]
fn carry_over_metadata(file: &File, before: &Identity) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(before.mode & 0o7777))?;
    // Ownership can only be kept when we may (root, or already the owner): a failure
    // leaves the new file owned by the user running knit, which is what they'd get from
    // any editor's save.
    let _ = std::os::unix::fs::fchown(file, Some(before.uid), Some(before.gid));
    Ok(())
}

#[cfg(not(unix))]
fn carry_over_metadata(_file: &File, _before: &Identity) -> std::io::Result<()> {
    Ok(())
}

/// fsyncs a folder so a rename in it survives a crash (best effort: not every file
/// system supports it).
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Lexical normalisation (`.` dropped, `..` pops): for paths given on a command line.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

// ---- knit's own files: caches and state, outside the workspace --------------------

/// Reads one of knit's own cache or state files (regular files only, bounded); `None`
/// when absent or unreadable — caches are advisory.
pub fn own_read(path: &Path, max: u64) -> Option<Vec<u8>> {
    let (file, meta) = open_regular(path, false).ok()?;
    read_bounded(file, &meta, max).ok()
}

/// Writes one of knit's own files atomically (temp file beside it, fsync, rename).
pub fn own_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent folder"))?;
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".knit-").suffix(".tmp").tempfile_in(dir)?;
    tmp.as_file_mut().write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

pub use tempfile::TempDir;

/// A private temporary folder of knit's own (removed when dropped).
pub fn own_temp_dir() -> std::io::Result<TempDir> {
    tempfile::Builder::new().prefix("knit-").tempdir()
}

/// Creates one of knit's own folders.
pub fn own_create_dir_all(dir: &Path) -> std::io::Result<()> {
    fs::create_dir_all(dir)
}

/// Removes one of knit's own folder trees (a corrupt index); absent is fine.
pub fn own_remove_dir_all(dir: &Path) -> std::io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Removes one of knit's own files (a cache an older knit left); absent is fine. A
/// symlink is removed, never followed.
pub fn own_remove_file(path: &Path) -> std::io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The real path of `p` (symlinks resolved), or `p` itself when it cannot be resolved
/// (absent, unreadable): for naming a path, never for opening one — opens go through
/// [`Confined`], which refuses what escapes the root whatever this returns.
pub fn canonical_or_self(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Whether one of knit's own cache or state files exists (without following a link).
pub fn own_exists(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// The canonical form of a folder the user named (a root, a cache dir).
pub fn canonical_dir(p: &Path) -> std::io::Result<PathBuf> {
    let real = p.canonicalize()?;
    if !real.is_dir() {
        return Err(std::io::Error::other(format!("{} is not a folder", p.display())));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        fs::create_dir_all(root.join("docs")).unwrap();
        (dir, root)
    }

    #[test]
    fn replace_keeps_mode_and_leaves_no_temp() {
        let (_d, root) = ws();
        let doc = root.join("docs/a.md");
        fs::write(&doc, "old\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&doc, fs::Permissions::from_mode(0o600)).unwrap();
        }
        let c = Confined::new(&root);
        let snap = c.read_for_edit("docs/a.md", MAX_FILE_BYTES).unwrap();
        c.replace(&snap, b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&doc).unwrap(), "new\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(&doc).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let names: Vec<_> = fs::read_dir(root.join("docs")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn a_change_after_reading_aborts_the_write() {
        let (_d, root) = ws();
        let doc = root.join("docs/a.md");
        fs::write(&doc, "old\n").unwrap();
        let c = Confined::new(&root);
        let snap = c.read_for_edit("docs/a.md", MAX_FILE_BYTES).unwrap();
        fs::write(&doc, "saved by the editor\n").unwrap();
        assert_eq!(c.replace(&snap, b"knit\n"), Err(WriteError::Changed));
        assert_eq!(fs::read_to_string(&doc).unwrap(), "saved by the editor\n");
    }

    #[cfg(unix)]
    #[test]
    fn links_read_only_and_fifos_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let (d, root) = ws();
        let outside = d.path().join("outside.txt");
        fs::write(&outside, "secret").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("docs/link.md")).unwrap();
        let c = Confined::new(&root);
        assert_eq!(c.read_for_edit("docs/link.md", 100).unwrap_err(), WriteError::Symlink);
        fs::write(root.join("docs/ro.md"), "x").unwrap();
        fs::set_permissions(root.join("docs/ro.md"), fs::Permissions::from_mode(0o444)).unwrap();
        let snap = c.read_for_edit("docs/ro.md", 100).unwrap();
        assert_eq!(c.replace(&snap, b"y"), Err(WriteError::ReadOnly));
        fs::write(root.join("docs/h.md"), "x").unwrap();
        fs::hard_link(root.join("docs/h.md"), root.join("h2.md")).unwrap();
        let snap = c.read_for_edit("docs/h.md", 100).unwrap();
        assert_eq!(c.replace(&snap, b"y"), Err(WriteError::HardLinked(2)));
        let fifo = root.join("docs/pipe.md");
        let cpath = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(cpath.as_ptr(), 0o644) }, 0);
        assert!(c.read_bytes("docs/pipe.md", 100).is_err());
        assert_eq!(c.read_for_edit("docs/pipe.md", 100).unwrap_err(), WriteError::NotRegular);
        std::os::unix::fs::symlink(d.path(), root.join("escape")).unwrap();
        assert_eq!(c.read_bytes("escape/outside.txt", 100), Err(ReadError::Outside));
        assert_eq!(c.read_for_edit("escape/outside.txt", 100).unwrap_err(), WriteError::Outside);
        assert_eq!(c.read_bytes("../outside.txt", 100), Err(ReadError::Outside));
    }
}
