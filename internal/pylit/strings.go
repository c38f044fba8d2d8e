package pylit

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// isPrefix reports whether s starts with a string prefix (r, u, b, or rb/br
// in either case) followed by a quote.
func isPrefix(s string) bool {
	n := prefixLen(s)
	return n > 0 && n < len(s) && (s[n] == '\'' || s[n] == '"')
}

func prefixLen(s string) int {
	n := 0
	for n < len(s) && n < 2 && strings.IndexByte("rRuUbB", s[n]) >= 0 {
		n++
	}
	return n
}

// strings reads one string literal and any that follow it, which Python
// joins ('a' 'b' is 'ab').
func (p *parser) strings() (Value, error) {
	var b strings.Builder
	for {
		if err := p.stringLiteral(&b); err != nil {
			return Value{}, err
		}
		save := p.pos
		p.space()
		if p.pos >= len(p.src) || !(p.src[p.pos] == '\'' || p.src[p.pos] == '"' || isPrefix(p.src[p.pos:])) {
			p.pos = save
			return Value{Kind: String, Str: b.String()}, nil
		}
	}
}

// stringLiteral reads one quoted literal into b.
func (p *parser) stringLiteral(b *strings.Builder) error {
	n := prefixLen(p.src[p.pos:])
	raw := strings.ContainsAny(p.src[p.pos:p.pos+n], "rR")
	p.pos += n
	start := p.pos
	quote := p.src[p.pos : p.pos+1]
	if strings.HasPrefix(p.src[p.pos:], strings.Repeat(quote, 3)) {
		quote = strings.Repeat(quote, 3)
	}
	p.pos += len(quote)
	for {
		if p.pos >= len(p.src) {
			p.pos = start
			return p.fail("unterminated string")
		}
		if strings.HasPrefix(p.src[p.pos:], quote) {
			p.pos += len(quote)
			return nil
		}
		c := p.src[p.pos]
		switch {
		case c == '\n' && len(quote) == 1:
			return p.fail("newline in a single-quoted string")
		case c == '\\' && raw:
			// A raw string keeps the backslash; it still escapes a quote.
			b.WriteByte('\\')
			p.pos++
			if p.pos < len(p.src) {
				r, size := utf8.DecodeRuneInString(p.src[p.pos:])
				b.WriteRune(r)
				p.pos += size
			}
		case c == '\\':
			if err := p.escape(b); err != nil {
				return err
			}
		default:
			r, size := utf8.DecodeRuneInString(p.src[p.pos:])
			b.WriteRune(r)
			p.pos += size
		}
	}
}

// simpleEscapes are the one-letter escapes of a Python string.
var simpleEscapes = map[byte]string{'\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f",
	'n': "\n", 'r': "\r", 't': "\t", 'v': "\v", '\n': ""}

// escape decodes the escape sequence at p.pos (a backslash) into b. An
// unknown escape stays as written, backslash included, as Python keeps it.
func (p *parser) escape(b *strings.Builder) error {
	at := p.pos
	p.pos++
	if p.pos >= len(p.src) {
		p.pos = at
		return p.fail("unterminated escape")
	}
	c := p.src[p.pos]
	if s, ok := simpleEscapes[c]; ok {
		b.WriteString(s)
		p.pos++
		return nil
	}
	switch c {
	case 'x', 'u', 'U':
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		hex := p.src[p.pos+1 : min(len(p.src), p.pos+1+width)]
		code, err := strconv.ParseUint(hex, 16, 32)
		if len(hex) != width || err != nil || code > utf8.MaxRune {
			p.pos = at
			return p.fail("malformed \\%c escape: want %d hex digits", c, width)
		}
		b.WriteRune(rune(code))
		p.pos += 1 + width
		return nil
	case '0', '1', '2', '3', '4', '5', '6', '7':
		end := p.pos
		for end < len(p.src) && end < p.pos+3 && '0' <= p.src[end] && p.src[end] <= '7' {
			end++
		}
		code, _ := strconv.ParseUint(p.src[p.pos:end], 8, 32) // at most three octal digits: always parses
		b.WriteRune(rune(code))
		p.pos = end
		return nil
	case 'N':
		p.pos = at
		return p.fail("\\N{...} named escapes are not supported")
	}
	b.WriteByte('\\')
	return nil
}
