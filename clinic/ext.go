package clinic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Ext holds the fields a benchmark adds to a shared type (an event's
// examination target, a case's tool sandbox), by JSON member name. It is
// written inline, as members of the shared type's own JSON object, so that a
// record keeps one flat shape whichever benchmark wrote it; reading collects
// every member the shared type does not know. A benchmark reads and writes
// its members through a type of its own with Decode and Put; generic code
// never looks inside.
type Ext map[string]json.RawMessage

// Decode fills v (a pointer to a struct with json tags) from the members it
// names; members it does not name are left alone.
func (x Ext) Decode(v any) error {
	if len(x) == 0 {
		return nil
	}
	b, err := json.Marshal(map[string]json.RawMessage(x))
	if err != nil {
		return fmt.Errorf("ext: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("ext: %w", err)
	}
	return nil
}

// Put writes the members of v (a struct with json tags) into x, replacing
// those present and deleting those v omits (an omitempty member at its zero
// value), so Put of a zero value clears v's members. It returns the
// extension to keep, nil when nothing is left.
func (x Ext) Put(v any) (Ext, error) {
	// No HTML escaping: the encoder that writes the shared type escapes (or
	// not) as it was told when it copies these bytes (MarshalInline).
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return x, fmt.Errorf("ext: %w", err)
	}
	b := enc.Bytes()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return x, fmt.Errorf("ext: %T is not a JSON object: %w", v, err)
	}
	out := Ext{}
	for k, m := range x {
		out[k] = m
	}
	for _, k := range jsonKeys(reflect.TypeOf(v)) {
		delete(out, k)
	}
	for k, m := range members {
		out[k] = m
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// Keys lists the members in name order.
func (x Ext) Keys() []string {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Clone copies the extension: the members' bytes are shared, never changed.
func (x Ext) Clone() Ext {
	if x == nil {
		return nil
	}
	out := make(Ext, len(x))
	for k, m := range x {
		out[k] = m
	}
	return out
}

// MarshalInline writes base (a struct value whose own MarshalJSON is not the
// caller's) as a JSON object followed by the members of x, in name order. A
// member that base already writes is an error: an extension must not shadow a
// shared field.
func MarshalInline(base any, x Ext) ([]byte, error) {
	// No HTML escaping here: the encoder that called MarshalJSON escapes (or
	// not) as it was told when it copies these bytes.
	var enc bytes.Buffer
	e := json.NewEncoder(&enc)
	e.SetEscapeHTML(false)
	if err := e.Encode(base); err != nil {
		return nil, err
	}
	b := bytes.TrimRight(enc.Bytes(), "\n")
	if len(x) == 0 {
		return b, nil
	}
	known := map[string]bool{}
	for _, k := range jsonKeys(reflect.TypeOf(base)) {
		known[k] = true
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1]) // the base object without its closing brace
	empty := bytes.Equal(bytes.TrimSpace(b), []byte("{}"))
	for _, k := range x.Keys() {
		if known[k] {
			return nil, fmt.Errorf("ext: member %q shadows a field of %T", k, base)
		}
		if !empty {
			buf.WriteByte(',')
		}
		empty = false
		kb, _ := json.Marshal(k) // a string always marshals
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(x[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalInline reads b into base (a pointer to a struct type without the
// caller's UnmarshalJSON) and returns the members base does not know, nil
// when there are none.
func UnmarshalInline(b []byte, base any) (Ext, error) {
	if err := json.Unmarshal(b, base); err != nil {
		return nil, err
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, k := range jsonKeys(reflect.TypeOf(base)) {
		known[k] = true
	}
	var out Ext
	for k, m := range members {
		if known[k] {
			continue
		}
		if out == nil {
			out = Ext{}
		}
		out[k] = m
	}
	return out, nil
}

var keyCache sync.Map // reflect.Type -> []string

// jsonKeys lists the JSON member names a struct type writes and reads (its
// exported fields' json names, embedded structs' members included).
func jsonKeys(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if k, ok := keyCache.Load(t); ok {
		return k.([]string)
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			keys = append(keys, jsonKeys(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys = append(keys, name)
	}
	keyCache.Store(t, keys)
	return keys
}

// The shared types that carry an extension write it inline and read back
// every member they do not know into it.

// MarshalJSON writes the event with its extension inline.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	return MarshalInline(plain(e), e.Ext)
}

// UnmarshalJSON reads the event; members it does not know go to Ext.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var p plain
	x, err := UnmarshalInline(b, &p)
	if err != nil {
		return err
	}
	*e = Event(p)
	e.Ext = x
	return nil
}

// MarshalJSON writes the output with its extension inline.
func (o DoctorOutput) MarshalJSON() ([]byte, error) {
	type plain DoctorOutput
	return MarshalInline(plain(o), o.Ext)
}

// UnmarshalJSON reads the output; members it does not know go to Ext.
func (o *DoctorOutput) UnmarshalJSON(b []byte) error {
	type plain DoctorOutput
	var p plain
	x, err := UnmarshalInline(b, &p)
	if err != nil {
		return err
	}
	*o = DoctorOutput(p)
	o.Ext = x
	return nil
}

// MarshalJSON writes the final output with its extension inline.
func (f FinalOutput) MarshalJSON() ([]byte, error) {
	type plain FinalOutput
	return MarshalInline(plain(f), f.Ext)
}

// UnmarshalJSON reads the final output; members it does not know go to Ext.
func (f *FinalOutput) UnmarshalJSON(b []byte) error {
	type plain FinalOutput
	var p plain
	x, err := UnmarshalInline(b, &p)
	if err != nil {
		return err
	}
	*f = FinalOutput(p)
	f.Ext = x
	return nil
}

// MarshalJSON writes the exam view with its extension inline.
func (v ExamView) MarshalJSON() ([]byte, error) {
	type plain ExamView
	return MarshalInline(plain(v), v.Ext)
}

// UnmarshalJSON reads the exam view; members it does not know go to Ext.
func (v *ExamView) UnmarshalJSON(b []byte) error {
	type plain ExamView
	var p plain
	x, err := UnmarshalInline(b, &p)
	if err != nil {
		return err
	}
	*v = ExamView(p)
	v.Ext = x
	return nil
}

// MarshalJSON writes the manager view with its extension inline.
func (v ManagerView) MarshalJSON() ([]byte, error) {
	type plain ManagerView
	return MarshalInline(plain(v), v.Ext)
}

// UnmarshalJSON reads the manager view; members it does not know go to Ext.
func (v *ManagerView) UnmarshalJSON(b []byte) error {
	type plain ManagerView
	var p plain
	x, err := UnmarshalInline(b, &p)
	if err != nil {
		return err
	}
	*v = ManagerView(p)
	v.Ext = x
	return nil
}
