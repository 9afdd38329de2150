//! `chmod`: a Unix file mode in every notation. Octal (`0755`, `4750`), the `ls -l` string
//! (`rwxr-xr-x`, `-rwsr-x---`), or a symbolic change as `chmod(1)` takes it (`u+x,go-w`,
//! `a=rX`, `g=u`, `+t`) applied to a base mode.
//!
//! Symbolic changes follow POSIX `chmod` with a umask of zero: a clause without `u`, `g`, `o`
//! or `a` changes all three (GNU chmod would first mask it with the process's umask, which a
//! service has no business guessing). `X` sets execute only on a directory or where some
//! execute bit is already set, and `=` leaves a directory's set-user-ID and set-group-ID bits
//! alone unless it names `s`, as GNU `chmod` does (checked against it: tests/it/system_tools.rs).

use wrench_contract::prelude::*;

const SETUID: u32 = 0o4000;
const SETGID: u32 = 0o2000;
const STICKY: u32 = 0o1000;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ChmodInput {
    /// An octal mode (`755`, `0644`, `4755`), an `ls -l` string (`rwxr-xr-x`, with or without
    /// the type character), or symbolic changes (`u+x,go-w`, `a=rX`).
    #[schemars(length(min = 1, max = 128))]
    mode: String,
    /// The mode symbolic changes start from, in octal (`644` by default, a new file's usual
    /// mode).
    #[schemars(regex(pattern = r"^[0-7]{1,4}$"))]
    base: Option<String>,
    /// Whether the file is a directory (for `X`, and the `ls` string's type character).
    #[serde(default)]
    directory: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Special {
    setuid: bool,
    setgid: bool,
    sticky: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Permissions {
    read: bool,
    write: bool,
    execute: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ChmodOutput {
    /// Four octal digits (`0755`).
    octal: String,
    /// Nine characters as `ls -l` shows them (`rwxr-xr-x`, `rwsr-x--T`).
    symbolic: String,
    /// With the type character, as `ls -l` and `stat -c %A` show it (`-rwxr-xr-x`).
    ls: String,
    special: Special,
    user: Permissions,
    group: Permissions,
    other: Permissions,
    /// The command that sets it (`chmod 0755 FILE`).
    command: String,
}

fn octal(text: &str) -> Option<u32> {
    (!text.is_empty() && text.len() <= 4 && text.bytes().all(|b| (b'0'..=b'7').contains(&b)))
        .then(|| u32::from_str_radix(text, 8).ok())
        .flatten()
}

/// The mode an `ls -l` string (nine characters, or ten with the type first) shows.
fn from_ls(text: &str) -> Option<u32> {
    let chars: Vec<char> = text.chars().collect();
    let perms = match chars.len() {
        9 => &chars[..],
        10 if "-dlcbps".contains(chars[0]) => &chars[1..],
        _ => return None,
    };
    let mut mode = 0;
    for (i, c) in perms.iter().enumerate() {
        let shift = 6 - (i / 3) * 3;
        let bit = match (i % 3, c) {
            (_, '-') => 0,
            (0, 'r') => 4,
            (1, 'w') => 2,
            (2, 'x') => 1,
            (2, 's') if i == 2 => {
                mode |= SETUID;
                1
            }
            (2, 'S') if i == 2 => {
                mode |= SETUID;
                0
            }
            (2, 's') if i == 5 => {
                mode |= SETGID;
                1
            }
            (2, 'S') if i == 5 => {
                mode |= SETGID;
                0
            }
            (2, 't') if i == 8 => {
                mode |= STICKY;
                1
            }
            (2, 'T') if i == 8 => {
                mode |= STICKY;
                0
            }
            _ => return None,
        };
        mode |= bit << shift;
    }
    Some(mode)
}

/// `base` changed by symbolic clauses (`u+x,go-w`); the reason when a clause does not parse.
fn apply_symbolic(text: &str, base: u32, directory: bool) -> Result<u32, String> {
    let mut mode = base;
    for clause in text.split(',') {
        let who_end = clause.find(['+', '-', '=']).ok_or_else(|| format!("`{clause}` has no +, - or ="))?;
        let who = &clause[..who_end];
        let mut mask = 0u32; // the permission bits the clause's classes cover
        let mut special_mask = 0u32;
        for c in who.chars() {
            match c {
                'u' => {
                    mask |= 0o700;
                    special_mask |= SETUID;
                }
                'g' => {
                    mask |= 0o070;
                    special_mask |= SETGID;
                }
                'o' => mask |= 0o007,
                'a' => {
                    mask |= 0o777;
                    special_mask |= SETUID | SETGID;
                }
                _ => return Err(format!("`{c}` is not one of u, g, o, a")),
            }
        }
        if who.is_empty() {
            mask = 0o777;
            special_mask = SETUID | SETGID;
        }
        // One or more actions: op followed by permissions, e.g. `u+x-w`.
        let mut rest = &clause[who_end..];
        while !rest.is_empty() {
            let op = rest.chars().next().unwrap_or('+');
            rest = &rest[1..];
            let end = rest.find(['+', '-', '=']).unwrap_or(rest.len());
            let perms = &rest[..end];
            rest = &rest[end..];
            let mut bits = 0u32;
            for p in perms.chars() {
                bits |= match p {
                    'r' => 0o444 & mask,
                    'w' => 0o222 & mask,
                    'x' => 0o111 & mask,
                    'X' if directory || mode & 0o111 != 0 => 0o111 & mask,
                    'X' => 0,
                    's' => special_mask & (SETUID | SETGID),
                    't' => {
                        if who.is_empty() || who.contains('o') || who.contains('a') {
                            STICKY
                        } else {
                            0
                        }
                    }
                    // Copy another class's bits: `g=u` gives the group what the user has.
                    'u' | 'g' | 'o' => {
                        let shift = match p {
                            'u' => 6,
                            'g' => 3,
                            _ => 0,
                        };
                        let class = (mode >> shift) & 0o7;
                        (class << 6 | class << 3 | class) & mask
                    }
                    _ => return Err(format!("`{p}` is not one of r, w, x, X, s, t, u, g, o")),
                };
            }
            match op {
                '+' => mode |= bits,
                '-' => mode &= !bits,
                _ => {
                    // `=` clears what the classes cover and their special bits, then sets;
                    // a directory keeps its set-user-ID and set-group-ID unless `s` is
                    // named, as GNU chmod keeps them.
                    let mut clear = mask | if directory { 0 } else { special_mask };
                    if who.is_empty() || who.contains('o') || who.contains('a') {
                        clear |= STICKY;
                    }
                    mode = (mode & !clear) | bits;
                }
            }
        }
    }
    Ok(mode)
}

fn ls_string(mode: u32) -> String {
    let mut out = String::with_capacity(9);
    for (i, shift) in [6, 3, 0].into_iter().enumerate() {
        let class = (mode >> shift) & 0o7;
        out.push(if class & 4 != 0 { 'r' } else { '-' });
        out.push(if class & 2 != 0 { 'w' } else { '-' });
        let x = class & 1 != 0;
        let special = [mode & SETUID != 0, mode & SETGID != 0, mode & STICKY != 0][i];
        out.push(match (special, x, i) {
            (true, true, 2) => 't',
            (true, false, 2) => 'T',
            (true, true, _) => 's',
            (true, false, _) => 'S',
            (false, true, _) => 'x',
            (false, false, _) => '-',
        });
    }
    out
}

fn permissions(mode: u32, shift: u32) -> Permissions {
    let class = (mode >> shift) & 0o7;
    Permissions { read: class & 4 != 0, write: class & 2 != 0, execute: class & 1 != 0 }
}

/// Convert a Unix file mode between octal, ls and symbolic forms.
///
/// Reads an octal mode, an `ls -l` permission string, or symbolic changes as `chmod` takes them
/// (`u+x,go-w`, `a=rX`, `g=u`, `+t`, applied to `base`), and answers the mode in octal, as
/// `ls -l` shows it, per class, with its setuid, setgid and sticky bits and the `chmod` command
/// that sets it.
#[op(post "/v1/chmod" as chmod, tag = DeveloperUtilities,
     rejects = "a mode that is none of the three notations",
     example(octal, {"mode": "4755"}),
     example(ls_string, {"mode": "-rw-r-----"}),
     example(symbolic, {"mode": "u+x,go-w", "base": "666"}),
     example(not_a_mode, {"mode": "u*x"}, status = 400))]
async fn chmod(input: ChmodInput) -> Result<ChmodOutput, ApiError> {
    let text = input.mode.trim();
    // An `ls -l` string names its own type.
    let directory = input.directory || (text.chars().count() == 10 && text.starts_with('d'));
    let mode = if let Some(m) = octal(text) {
        m
    } else if let Some(m) = from_ls(text) {
        m
    } else {
        let base = input
            .base
            .as_deref()
            .map_or(Some(0o644), octal)
            .ok_or_else(|| ApiError::invalid("base", "is not an octal mode"))?;
        apply_symbolic(text, base, directory).map_err(|e| {
            ApiError::invalid("mode", format!("is not an octal mode, an ls string or symbolic changes: {e}"))
        })?
    };
    let symbolic = ls_string(mode);
    Ok(ChmodOutput {
        octal: format!("{mode:04o}"),
        ls: format!("{}{symbolic}", if directory { 'd' } else { '-' }),
        symbolic,
        special: Special { setuid: mode & SETUID != 0, setgid: mode & SETGID != 0, sticky: mode & STICKY != 0 },
        user: permissions(mode, 6),
        group: permissions(mode, 3),
        other: permissions(mode, 0),
        command: format!("chmod {mode:04o} FILE"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notations_agree() {
        assert_eq!(ls_string(0o4755), "rwsr-xr-x");
        assert_eq!(ls_string(0o1644), "rw-r--r-T");
        assert_eq!(from_ls("-rwsr-x--T"), Some(0o5750));
        assert_eq!(from_ls("rwxr-xr-x"), Some(0o755));
        assert_eq!(apply_symbolic("u+x,go-w", 0o666, false), Ok(0o744));
        assert_eq!(apply_symbolic("a=rX", 0o644, false), Ok(0o444));
        assert_eq!(apply_symbolic("a=rX", 0o744, false), Ok(0o555));
        assert_eq!(apply_symbolic("g=u", 0o640, false), Ok(0o660));
        assert!(apply_symbolic("u*x", 0o644, false).is_err());
    }
}
