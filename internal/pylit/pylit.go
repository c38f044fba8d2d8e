// Package pylit parses Python literal expressions: the strings, numbers,
// True/False/None, lists, tuples, sets and dicts that Python's
// ast.literal_eval reads. Published data sets written from Python (a dict
// printed with str() into a text column) hold such literals; this reads them
// as values, keeping the order of dict keys, instead of guessing at them with
// patterns.
package pylit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what a Value holds.
type Kind int

// The kinds of literal.
const (
	String Kind = iota
	Number
	Bool
	None
	List
	Tuple
	Set
	Dict
)

// Value is one literal. Str holds a string's decoded text or a number's
// source text; Items a list's, tuple's or set's elements, or a dict's values;
// Keys a dict's keys, in source order, beside Items.
type Value struct {
	Kind  Kind
	Str   string
	Bool  bool
	Items []Value
	Keys  []Value
}

// SyntaxError is a literal that does not parse, at a byte offset of the source.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("python literal: offset %d: %s", e.Offset, e.Msg)
}

// maxDepth bounds nesting, so a hostile input cannot exhaust the stack
// (clinevo's choice; real records nest five deep at most).
const maxDepth = 200

// Parse reads src as exactly one literal, surrounding whitespace allowed.
// Errors are *SyntaxError with the offset of the problem.
func Parse(src string) (Value, error) {
	p := &parser{src: src}
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.pos < len(p.src) {
		return Value{}, p.fail("unexpected %q after the literal", p.peekRune())
	}
	return v, nil
}

type parser struct {
	src string
	pos int
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) peekRune() rune {
	r, _ := utf8.DecodeRuneInString(p.src[p.pos:])
	return r
}

// space skips whitespace, line continuations and comments.
func (p *parser) space() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			p.pos++
		case c == '\\' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n':
			p.pos += 2
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.fail("nested deeper than %d", maxDepth)
	}
	p.space()
	if p.pos >= len(p.src) {
		return Value{}, p.fail("unexpected end of input, want a literal")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.braces(depth)
	case c == '[':
		p.pos++
		items, _, err := p.sequence(']', depth)
		return Value{Kind: List, Items: items}, err
	case c == '(':
		return p.parens(depth)
	case c == '\'' || c == '"' || isPrefix(p.src[p.pos:]):
		return p.strings()
	case c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9'):
		return p.number()
	}
	return p.name()
}

// sequence reads values separated by commas up to close, which it consumes;
// it reports whether a comma followed the last value.
func (p *parser) sequence(close byte, depth int) ([]Value, bool, error) {
	var items []Value
	for {
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == close {
			p.pos++
			return items, true, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, false, err
		}
		items = append(items, v)
		p.space()
		if p.pos >= len(p.src) {
			return nil, false, p.fail("unexpected end of input, want ',' or %q", close)
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case close:
			p.pos++
			return items, false, nil
		default:
			return nil, false, p.fail("unexpected %q, want ',' or %q", p.peekRune(), close)
		}
	}
}

// parens reads a tuple, or a parenthesised value: "(x)" is x, "(x,)" and "()" tuples.
func (p *parser) parens(depth int) (Value, error) {
	p.pos++
	items, comma, err := p.sequence(')', depth)
	if err != nil {
		return Value{}, err
	}
	if len(items) == 1 && !comma {
		return items[0], nil
	}
	return Value{Kind: Tuple, Items: items}, nil
}

// braces reads a dict, or a set when the first element has no colon.
func (p *parser) braces(depth int) (Value, error) {
	p.pos++
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return Value{Kind: Dict}, nil
	}
	first, err := p.value(depth + 1)
	if err != nil {
		return Value{}, err
	}
	p.space()
	if p.pos >= len(p.src) || p.src[p.pos] != ':' {
		rest, err := p.afterFirst(depth)
		return Value{Kind: Set, Items: append([]Value{first}, rest...)}, err
	}
	d := Value{Kind: Dict}
	key := first
	for {
		p.pos++ // the colon
		v, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		d.Keys, d.Items = append(d.Keys, key), append(d.Items, v)
		p.space()
		if p.pos >= len(p.src) {
			return Value{}, p.fail("unexpected end of input, want ',' or '}'")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			return d, nil
		}
		if p.src[p.pos] != ',' {
			return Value{}, p.fail("unexpected %q, want ',' or '}'", p.peekRune())
		}
		p.pos++
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			return d, nil
		}
		if key, err = p.value(depth + 1); err != nil {
			return Value{}, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return Value{}, p.fail("want ':' after a dict key")
		}
	}
}

// afterFirst reads the rest of a set after its first element.
func (p *parser) afterFirst(depth int) ([]Value, error) {
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of input, want ':', ',' or '}'")
	}
	switch p.src[p.pos] {
	case '}':
		p.pos++
		return nil, nil
	case ',':
		p.pos++
		items, _, err := p.sequence('}', depth)
		return items, err
	}
	return nil, p.fail("unexpected %q, want ':', ',' or '}'", p.peekRune())
}

// name reads True, False or None.
func (p *parser) name() (Value, error) {
	start := p.pos
	for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
		p.pos++
	}
	switch p.src[start:p.pos] {
	case "True":
		return Value{Kind: Bool, Bool: true}, nil
	case "False":
		return Value{Kind: Bool}, nil
	case "None":
		return Value{Kind: None}, nil
	}
	p.pos = start
	return Value{}, p.fail("unexpected %q, want a literal", p.peekRune())
}

func isNameByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// number reads an int or float with an optional sign, keeping its source text.
func (p *parser) number() (Value, error) {
	start := p.pos
	if c := p.src[p.pos]; c == '-' || c == '+' {
		p.pos++
		p.space()
	}
	digits := p.pos
	for p.pos < len(p.src) && strings.IndexByte("0123456789_.eE+-xXoObBabcdefABCDEFjJ", p.src[p.pos]) >= 0 {
		c := p.src[p.pos]
		if (c == '+' || c == '-') && !(p.pos > digits && strings.IndexByte("eE", p.src[p.pos-1]) >= 0) {
			break
		}
		p.pos++
	}
	text := strings.ReplaceAll(p.src[digits:p.pos], "_", "")
	if !validNumber(text) {
		p.pos = start
		return Value{}, p.fail("malformed number %q", p.src[start:max(start+1, digits+len(text))])
	}
	sign := ""
	if p.src[start] == '-' {
		sign = "-"
	}
	return Value{Kind: Number, Str: sign + text}, nil
}

func validNumber(t string) bool {
	if strings.HasSuffix(t, "j") || strings.HasSuffix(t, "J") {
		t = t[:len(t)-1] // an imaginary literal
	}
	if t == "" || strings.IndexByte("0123456789.", t[0]) < 0 {
		return false
	}
	if _, err := strconv.ParseInt(t, 0, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return !strings.ContainsAny(t, "xXpP")
	}
	// An int too large for 64 bits is still an int.
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
