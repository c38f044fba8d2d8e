package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// The episode keys a benchmark adds (episode.max_steps, episode.actions, ...)
// live in Episode.Ext: written and read inline, as members of the episode
// section, so a key keeps its name whichever package owns it. Each
// benchmark declares its keys with their defaults, reads them with Decode,
// and validates them (bench.Set.ValidateSettings).

// MarshalJSON writes the episode section with its extension keys inline, in
// name order after the shared ones.
func (e Episode) MarshalJSON() ([]byte, error) {
	type plain Episode
	b, err := json.Marshal(plain(e))
	if err != nil || len(e.Ext) == 0 {
		return b, err
	}
	known := map[string]bool{}
	for _, k := range jsonNames(reflect.TypeFor[plain]()) {
		known[k] = true
	}
	var buf bytes.Buffer
	buf.Write(b[:len(b)-1])
	for _, k := range sortedKeys(e.Ext) {
		if known[k] {
			return nil, fmt.Errorf("settings: episode.%s is a shared key and an extension key", k)
		}
		vb, err := json.Marshal(e.Ext[k])
		if err != nil {
			return nil, fmt.Errorf("settings: episode.%s: %w", k, err)
		}
		kb, _ := json.Marshal(k) // a string always marshals
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads the episode section; keys it does not share go to Ext.
func (e *Episode) UnmarshalJSON(b []byte) error {
	type plain Episode
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range jsonNames(reflect.TypeFor[plain]()) {
		delete(all, k)
	}
	*e = Episode(p)
	e.Ext = nil
	if len(all) > 0 {
		e.Ext = all
	}
	return nil
}

// Decode reads the extension keys that v (a pointer to a struct with json
// tags) names into it; keys it does not name are left alone. Text values
// (from environment variables) are read as the field's type: a number, a
// boolean, or a comma-separated list. A value of the wrong type is an error
// naming its key (episode.<key>).
func (e Episode) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("settings: Decode needs a pointer to a struct, got %T", v)
	}
	fields := map[string]reflect.Type{}
	t := rv.Elem().Type()
	for i := range t.NumField() {
		if name := jsonName(t.Field(i)); name != "" {
			fields[name] = t.Field(i).Type
		}
	}
	for _, k := range sortedKeys(e.Ext) {
		ft, ok := fields[k]
		if !ok {
			continue
		}
		val, err := coerce(e.Ext[k], ft)
		if err != nil {
			return fmt.Errorf("episode.%s: %w", k, err)
		}
		b, err := json.Marshal(map[string]any{k: val})
		if err != nil {
			return fmt.Errorf("episode.%s: %w", k, err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			return fmt.Errorf("episode.%s: want %s, got %v", k, kindName(ft), e.Ext[k])
		}
	}
	return nil
}

// coerce reads a text value as the type a field wants. A number that is
// not finite is refused here, with the key, before JSON (which carries
// settings and has no infinity) refuses it in its own words.
func coerce(v any, t reflect.Type) (any, error) {
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return nil, fmt.Errorf("want a finite number, got %v", f)
	}
	s, ok := v.(string)
	if !ok {
		return v, nil
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an integer, got %q", s)
		}
		return n, nil
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, fmt.Errorf("want a number, got %q", s)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("want a finite number, got %q", s)
		}
		return f, nil
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("want true or false, got %q", s)
		}
		return b, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			var out []string
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
			return out, nil
		}
	}
	return v, nil
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	case reflect.String:
		return "text"
	}
	return t.String()
}

// ExtKeys lists the JSON keys of a struct value with json tags (a
// benchmark's episode defaults).
func ExtKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := jsonNames(t)
	sort.Strings(out)
	return out
}

// ExtValues are the keys and values of a struct value with json tags, as
// Episode.Ext holds them.
func ExtValues(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if n := jsonName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" || !f.IsExported() {
		return ""
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name
}

// cloneExt copies extension values deeply (they are JSON data).
func cloneExt(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return m // JSON data always marshals; keep the original rather than lose it
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil {
		return m
	}
	return out
}
