package ddxplus

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The release's CSV holds its lists as Python literals: EVIDENCES is a list of
// quoted codes, DIFFERENTIAL_DIAGNOSIS a list of [name, probability] pairs.
// pyValue is one parsed element: a string, a number, or a list.
type pyValue struct {
	str    string
	num    float64
	list   []pyValue
	isStr  bool
	isNum  bool
	isList bool
}

// parsePyList parses a Python list literal of strings, numbers and lists, as
// repr writes them (single or double quotes, backslash escapes). The error
// says what was expected where.
func parsePyList(s string) ([]pyValue, error) {
	p := &pyParser{s: s}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	switch {
	case p.i < len(p.s):
		return nil, fmt.Errorf("unexpected %q after the list at character %d", p.s[p.i:p.i+1], p.i+1)
	case !v.isList:
		return nil, fmt.Errorf("want a list in brackets, got %q", clip(s))
	}
	return v.list, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *pyParser) value() (pyValue, error) {
	if p.i >= len(p.s) {
		return pyValue{}, fmt.Errorf("the list ends early at character %d", p.i+1)
	}
	switch c := p.s[p.i]; {
	case c == '[':
		return p.listValue()
	case c == '\'' || c == '"':
		str, err := p.quoted(c)
		return pyValue{str: str, isStr: true}, err
	default:
		return p.number()
	}
}

func (p *pyParser) listValue() (pyValue, error) {
	p.i++ // [
	out := pyValue{isList: true}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return out, nil
		}
		if len(out.list) > 0 {
			if p.i >= len(p.s) || p.s[p.i] != ',' {
				return pyValue{}, fmt.Errorf("want , or ] at character %d", p.i+1)
			}
			p.i++
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ']' { // a trailing comma
				p.i++
				return out, nil
			}
		}
		v, err := p.value()
		if err != nil {
			return pyValue{}, err
		}
		out.list = append(out.list, v)
	}
}

func (p *pyParser) quoted(q byte) (string, error) {
	start := p.i + 1
	var b strings.Builder
	for p.i = start; p.i < len(p.s); {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			b.WriteByte(unescape(p.s[p.i+1]))
			p.i += 2
		default:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += n
		}
	}
	return "", fmt.Errorf("the text starting at character %d has no closing quote", start)
}

// unescape reads the escapes Python's repr writes in these files: quotes and
// the backslash stand for themselves.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	}
	return c
}

func (p *pyParser) number() (pyValue, error) {
	start := p.i
	for p.i < len(p.s) && strings.ContainsRune("0123456789+-.eE", rune(p.s[p.i])) {
		p.i++
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil || start == p.i {
		return pyValue{}, fmt.Errorf("want a quoted text, a number or a list at character %d", start+1)
	}
	return pyValue{num: f, isNum: true}, nil
}

// clip shortens a field for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
