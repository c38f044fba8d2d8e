package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// Overrides are partial settings with the configuration file's keys, as an
// experiment's `settings:` blocks hold them: {episode: {max_turns: 6}}.
type Overrides map[string]any

// Apply returns base with the overrides applied in order (later ones win).
// Maps merge key by key, everything else is replaced. An unknown key is an
// error naming its full path under where (e.g. "conditions[2].settings").
func Apply(base Settings, where string, overrides ...Overrides) (Settings, error) {
	merged, err := toMap(base)
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", where, err)
	}
	for _, o := range overrides {
		if len(o) == 0 {
			continue
		}
		o := normalise(map[string]any(o)).(map[string]any)
		if err := check(reflect.TypeFor[Settings](), o, where); err != nil {
			return Settings{}, err
		}
		merge(merged, o)
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", where, err)
	}
	var out Settings
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return Settings{}, fmt.Errorf("%s: %s", where, describe(err))
	}
	return out, nil
}

func toMap(s Settings) (map[string]any, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// check walks the overrides against the settings type: every key must be a
// field (or, under a map, any key whose value fits the map's element).
func check(t reflect.Type, v any, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m, isMap := v.(map[string]any)
	switch t.Kind() {
	case reflect.Struct:
		if _, ok := reflect.New(t).Interface().(interface{ UnmarshalText([]byte) error }); ok {
			return nil // a text value such as a Duration
		}
		if !isMap {
			return fmt.Errorf("%s: want a mapping of keys, got %v", path, v)
		}
		for _, k := range sortedKeys(m) {
			f, ok := fieldByKey(t, k)
			if !ok && hasRemain(t) {
				// A benchmark's key: bench.Set.ValidateSettings names it if no
				// benchmark has it; its numbers must reach JSON all the same.
				if err := finite(m[k], path+"."+k); err != nil {
					return err
				}
				continue
			}
			if !ok {
				return fmt.Errorf("%s.%s: unknown settings key (known: %s)", path, k, strings.Join(keysOf(t), ", "))
			}
			if err := check(f.Type, m[k], path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Float32, reflect.Float64:
		// JSON, which carries the overrides on, has no infinity: say so
		// with the key instead of failing to encode.
		if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			return fmt.Errorf("%s: want a finite number, got %v", path, f)
		}
	case reflect.Map:
		if !isMap {
			return fmt.Errorf("%s: want a mapping, got %v", path, v)
		}
		for _, k := range sortedKeys(m) {
			if err := check(t.Elem(), m[k], path+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

// finite refuses a number that is not finite anywhere in v, a value whose
// type only its benchmark knows, naming where: JSON, which carries the
// overrides on, has no infinity.
func finite(v any, path string) error {
	switch x := v.(type) {
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Errorf("%s: want a finite number, got %v", path, x)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if err := finite(x[k], path+"."+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := finite(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// hasRemain reports whether a settings section keeps the keys it does not
// know for the benchmarks (Episode.Ext).
func hasRemain(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Tag.Get("mapstructure") == ",remain" {
			return true
		}
	}
	return false
}

func keysOf(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// normalise turns nested Overrides (what a YAML decoder makes of a nested
// mapping) and map[any]any (older decoders) into map[string]any.
func normalise(v any) any {
	switch x := v.(type) {
	case Overrides:
		return normalise(map[string]any(x))
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = normalise(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e)
		}
		return out
	}
	return v
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if d, ok := dst[k].(map[string]any); ok {
				merge(d, sub)
				continue
			}
			if dst[k] == nil {
				d := map[string]any{}
				merge(d, sub)
				dst[k] = d
				continue
			}
		}
		dst[k] = v
	}
}

// describe rewrites a JSON type error with the settings key it concerns.
func describe(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("settings key %s: want a %s, got a %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}
