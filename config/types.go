package config

import (
	"encoding"
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/settings"
)

// checkTypes refuses a value of the wrong type for its key before viper
// decodes it: viper's decoder is weakly typed, so memory.k: 3.7 would become
// 3 and "abc" an error naming no file or variable. Each error names the key,
// where the value came from (the CLINEVO_* variable or the config file) and
// what the key takes. Flags are typed by their parser already.
func checkTypes(v *viper.Viper, file string, set bench.Set) error {
	types := keyTypes(set)
	var fromFile *viper.Viper
	if file != "" {
		fromFile = viper.New()
		fromFile.SetConfigFile(file)
		if err := fromFile.ReadInConfig(); err != nil {
			return fmt.Errorf("config %s: %w", file, err)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(types)) {
		t := types[key]
		source := ""
		var raw any
		env := "CLINEVO_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		if val, ok := os.LookupEnv(env); ok {
			source, raw = "environment variable "+env, val
		} else if fromFile != nil && fromFile.IsSet(key) {
			source, raw = "config "+file, fromFile.Get(key)
		} else {
			continue // a default or a typed flag
		}
		if err := fits(t, raw); err != nil {
			return fmt.Errorf("%s: %s: %w", source, key, err)
		}
	}
	// Keys under maps (episode.prices.<category>, roles.<role>.<field>) are
	// not in keyTypes by name: check what the file sets under them.
	if fromFile != nil {
		for _, key := range fromFile.AllKeys() {
			if _, ok := types[key]; ok {
				continue
			}
			if t, ok := mapKeyType(key); ok {
				if err := fits(t, fromFile.Get(key)); err != nil {
					return fmt.Errorf("config %s: %s: %w", file, key, err)
				}
			}
		}
	}
	return nil
}

// keyTypes maps every configuration key of the deployment and the settings
// (their defaults' keys) to its Go type.
func keyTypes(set bench.Set) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for key := range defaults(set) {
		if t, ok := typeAt(reflect.TypeFor[Config](), strings.Split(key, ".")); ok {
			out[key] = t
		} else if t, ok := typeAt(reflect.TypeFor[settings.Settings](), strings.Split(key, ".")); ok {
			out[key] = t
		}
	}
	return out
}

// mapKeyType is the type of a key under one of the settings' maps.
func mapKeyType(key string) (reflect.Type, bool) {
	if strings.HasPrefix(key, "episode.prices.") || strings.HasPrefix(key, "roles.") {
		return typeAt(reflect.TypeFor[settings.Settings](), strings.Split(key, "."))
	}
	return nil, false
}

// typeAt follows a key's parts through t's mapstructure tags (any key of a map).
func typeAt(t reflect.Type, parts []string) (reflect.Type, bool) {
	if len(parts) == 0 {
		return t, true
	}
	switch t.Kind() {
	case reflect.Map:
		return typeAt(t.Elem(), parts[1:])
	case reflect.Struct:
		if isText(t) {
			return nil, false
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("mapstructure"), ","); name == parts[0] {
				return typeAt(f.Type, parts[1:])
			}
		}
	}
	return nil, false
}

func isText(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]())
}

// fits checks that raw, as a file or a variable gives it, is a value of type t.
func fits(t reflect.Type, raw any) error {
	if isText(t) {
		s, ok := raw.(string)
		if !ok {
			return fmt.Errorf("want a duration like 60s or 2m, got %v", raw)
		}
		return reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fitsWhole(raw)
	case reflect.Float32, reflect.Float64:
		return fitsFloat(raw)
	case reflect.Bool:
		return fitsBool(raw)
	case reflect.String:
		switch raw.(type) {
		case string, int, int64, float64, bool:
			return nil
		}
		return fmt.Errorf("want a text, got %s", show(raw))
	case reflect.Slice:
		switch raw.(type) {
		case string, []any, []string:
			return nil
		}
		return fmt.Errorf("want a list, got %s", show(raw))
	case reflect.Map, reflect.Struct:
		if _, ok := raw.(map[string]any); ok {
			return nil
		}
		return fmt.Errorf("want a mapping of keys, got %s", show(raw))
	}
	return nil
}

// fitsWhole accepts an integer, a float without a fraction, or a text of one.
func fitsWhole(raw any) error {
	switch x := raw.(type) {
	case int, int64, int32:
		return nil
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return nil
		}
	case string:
		if _, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err == nil {
			return nil
		}
	}
	return fmt.Errorf("want a whole number, got %s", show(raw))
}

// fitsBool accepts a bool or a text of one.
func fitsBool(raw any) error {
	switch x := raw.(type) {
	case bool:
		return nil
	case string:
		if _, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("want true or false, got %s", show(raw))
}

// show quotes a text and prints anything else as it is.
func show(raw any) string {
	if s, ok := raw.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(raw)
}

// fitsFloat checks a value for a key that takes a number: a finite one
// (JSON, which carries settings on, has no infinity).
func fitsFloat(raw any) error {
	switch x := raw.(type) {
	case int, int64, int32:
		return nil
	case float64:
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			return nil
		}
		return fmt.Errorf("want a finite number, got %v", x)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return nil
		}
	}
	return fmt.Errorf("want a number, got %s", show(raw))
}
