package pylit

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func str(s string) Value { return Value{Kind: String, Str: s} }
func num(s string) Value { return Value{Kind: Number, Str: s} }

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      Value
	}{
		{"single quotes", `'a b'`, str("a b")},
		{"double quotes hold a single quote", `"Hirschsprung's"`, str("Hirschsprung's")},
		{"escaped quote", `'it\'s'`, str("it's")},
		{"newline and tab escapes", `'a\nb\tc\\d'`, str("a\nb\tc\\d")},
		{"unknown escape kept", `'\d+'`, str(`\d+`)},
		{"hex, unicode and octal escapes", `'\x41\u00e9\U0001F600\101'`, str("Aé😀A")},
		{"raw string keeps backslashes", `r'\n\''`, str(`\n\'`)},
		{"triple quotes span lines", "'''a\n'b'\n'''", str("a\n'b'\n")},
		{"adjacent literals join", `'a' "b"`, str("ab")},
		{"unicode prefix", `u'x'`, str("x")},
		{"line continuation in a string", "'a\\\nb'", str("ab")},
		{"int", `42`, num("42")},
		{"negative float with exponent", `-1.5e-3`, num("-1.5e-3")},
		{"underscored int", `1_000`, num("1000")},
		{"booleans and None", `[True, False, None]`, Value{Kind: List, Items: []Value{{Kind: Bool, Bool: true}, {Kind: Bool}, {Kind: None}}}},
		{"empty list", `[]`, Value{Kind: List}},
		{"trailing comma", `[1, 2,]`, Value{Kind: List, Items: []Value{num("1"), num("2")}}},
		{"tuple", `(1, 'a')`, Value{Kind: Tuple, Items: []Value{num("1"), str("a")}}},
		{"one-tuple", `(1,)`, Value{Kind: Tuple, Items: []Value{num("1")}}},
		{"parenthesised value", `('a')`, str("a")},
		{"empty tuple", `()`, Value{Kind: Tuple}},
		{"set", `{1, 2}`, Value{Kind: Set, Items: []Value{num("1"), num("2")}}},
		{"empty dict", `{}`, Value{Kind: Dict}},
		{"dict keeps key order", `{'b': 1, 'a': {'c': [2]}, }`, Value{Kind: Dict,
			Keys:  []Value{str("b"), str("a")},
			Items: []Value{num("1"), {Kind: Dict, Keys: []Value{str("c")}, Items: []Value{{Kind: List, Items: []Value{num("2")}}}}}}},
		{"comments and whitespace", "{\n 'a': 1, # note\n}\n", Value{Kind: Dict, Keys: []Value{str("a")}, Items: []Value{num("1")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.src)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		offset    int
		msg       string
	}{
		{"empty", ``, 0, "unexpected end of input"},
		{"unterminated string", `{'a': 'b}`, 6, "unterminated string"},
		{"newline in a single-quoted string", "'a\nb'", 2, "newline in a single-quoted string"},
		{"missing colon", `{'a': 1, 'b' 2}`, 13, "want ':' after a dict key"},
		{"missing comma", `[1 2]`, 3, "want ',' or ']'"},
		{"unclosed list", `[1, 2`, 5, "unexpected end of input"},
		{"a name that is not a literal", `{'a': foo}`, 6, `unexpected 'f', want a literal`},
		{"malformed number", `[1.2.3]`, 1, "malformed number"},
		{"bad hex escape", `'\xZZ'`, 1, `malformed \x escape`},
		{"named escape", `'\N{DASH}'`, 1, `\N{...} named escapes`},
		{"text after the literal", `{} x`, 3, `unexpected 'x' after the literal`},
		{"too deep", strings.Repeat("[", maxDepth+2), maxDepth + 1, "nested deeper than 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.src)
			var se *SyntaxError
			require.True(t, errors.As(err, &se), "want a *SyntaxError, got %v", err)
			require.Equal(t, tc.offset, se.Offset, se.Error())
			require.Contains(t, se.Msg, tc.msg)
			require.Contains(t, err.Error(), fmt.Sprintf("offset %d", tc.offset))
		})
	}
}

// repr writes v back as a Python literal, so that a parsed value can be
// parsed again: the fuzz target's round trip.
func repr(v Value) string {
	seq := func(open, close string, items []Value) string {
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = repr(it)
		}
		return open + strings.Join(parts, ", ") + close
	}
	switch v.Kind {
	case String:
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`).Replace(v.Str) + "'"
	case Number:
		return v.Str
	case Bool:
		return map[bool]string{true: "True", false: "False"}[v.Bool]
	case None:
		return "None"
	case List:
		return seq("[", "]", v.Items)
	case Tuple:
		if len(v.Items) == 0 {
			return "()"
		}
		return seq("(", ",)", v.Items)
	case Set:
		return seq("{", "}", v.Items)
	}
	parts := make([]string, len(v.Items))
	for i := range v.Items {
		parts[i] = repr(v.Keys[i]) + ": " + repr(v.Items[i])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// FuzzParse checks that Parse never panics, that an error always carries an
// offset inside the input, and that a parsed value written back parses to the
// same value.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`{'Imaging Studies': {'CT': {'Title': 'Coronal CT', 'Description': "Left-sided abscess"}}}`,
		`{'Laboratory Tests': '- Negative serology\n- Patch testing', 'Images': [{'Figure 1': 'A, papules'}]}`,
		`['a', ("b", 1.5e3), {1, -2}, None, True, r'\d']`, `'''x'''`, `{'a': '\u00e9\x41'}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		v, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(src) {
				t.Fatalf("error %v: want a *SyntaxError with an offset in [0, %d]", err, len(src))
			}
			return
		}
		again, err := Parse(repr(v))
		if err != nil {
			t.Fatalf("%s written back as %s does not parse: %v", strconv.Quote(src), repr(v), err)
		}
		if !reflect.DeepEqual(v, again) {
			t.Fatalf("round trip of %s: %#v, then %#v", strconv.Quote(src), v, again)
		}
	})
}
