//! ISO 8601 timestamps as Claude Code writes them (`2026-11-30T06:56:02.123Z`, sometimes with
//! an offset or without fraction) to milliseconds since the Unix epoch.

fn num(b: &[u8]) -> Option<i64> {
    let mut v: i64 = 0;
    if b.is_empty() {
        return None;
    }
    for &c in b {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
    }
    Some(v)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

pub fn parse_ms(s: &[u8]) -> Option<i64> {
    if s.len() < 19 || s[4] != b'-' || s[7] != b'-' || (s[10] != b'T' && s[10] != b' ') {
        return None;
    }
    let (y, mo, d) = (num(&s[0..4])?, num(&s[5..7])?, num(&s[8..10])?);
    let (h, mi, se) = (num(&s[11..13])?, num(&s[14..16])?, num(&s[17..19])?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut i = 19;
    let mut ms = 0i64;
    if s.get(i) == Some(&b'.') {
        let start = i + 1;
        let mut end = start;
        while end < s.len() && s[end].is_ascii_digit() {
            end += 1;
        }
        let frac = &s[start..end];
        if frac.is_empty() {
            return None;
        }
        for k in 0..3 {
            ms = ms * 10 + frac.get(k).map_or(0, |c| (c - b'0') as i64);
        }
        i = end;
    }
    let offset_min = match s.get(i) {
        None => 0,
        Some(b'Z') | Some(b'z') if i + 1 == s.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let rest = &s[i + 1..];
            let (oh, om) = match rest.len() {
                5 if rest[2] == b':' => (num(&rest[0..2])?, num(&rest[3..5])?),
                4 => (num(&rest[0..2])?, num(&rest[2..4])?),
                2 => (num(rest)?, 0),
                _ => return None,
            };
            let v = oh * 60 + om;
            if sign == b'+' {
                v
            } else {
                -v
            }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    let secs = days * 86400 + h * 3600 + mi * 60 + se - offset_min * 60;
    Some(secs * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::parse_ms;

    #[test]
    fn parses_claude_code_timestamps() {
        assert_eq!(parse_ms(b"1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(parse_ms(b"2026-11-30T06:56:02.123Z"), Some(1796021762123));
        assert_eq!(parse_ms(b"2026-11-30T07:56:02.123+01:00"), Some(1796021762123));
        assert_eq!(parse_ms(b"2026-11-30T06:56:02Z"), Some(1796021762000));
        assert_eq!(parse_ms(b"2024-02-29T00:00:00.5Z"), Some(1709164800500));
        assert_eq!(parse_ms(b"not a time"), None);
        assert_eq!(parse_ms(b"2026-13-01T00:00:00Z"), None);
    }
}
