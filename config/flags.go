package config

import (
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/clinevo/clinevo/bench"
)

// flagKey annotates a command's flag with the configuration key it sets
// (BindKey).
const flagKey = "clinevo/config-key"

// BindKey makes the defined flag name of fs set configuration key key when
// it is given (LoadFlags binds it). Several commands' flags may set one key:
// viper binds one flag a key, so only the running command's are bound.
func BindKey(fs *pflag.FlagSet, name, key string) {
	// The flag exists (defined by the caller), so the annotation cannot fail.
	_ = fs.SetAnnotation(name, flagKey, []string{key})
}

// LoadFlags reads the configuration of a command whose parsed flags are fs
// into v (made by New with the same set): the flags BindKey annotated that
// were given, then Load's layers (environment, file, defaults), then the
// address a running `clinevo dev` wrote in the data dir (UseDev) for the
// --address and --namespace not given there or in v.
func LoadFlags(v *viper.Viper, file string, set bench.Set, fs *pflag.FlagSet) (Config, error) {
	fs.VisitAll(func(f *pflag.Flag) {
		if keys := f.Annotations[flagKey]; len(keys) == 1 && f.Changed {
			_ = v.BindPFlag(keys[0], f) // f is not nil: BindPFlag fails on nil only
		}
	})
	cfg, err := Load(v, file, set)
	if err != nil {
		return Config{}, err
	}
	given := func(flag, key string) bool {
		return fs.Changed(flag) || Explicit(v, key)
	}
	if err := cfg.UseDev(given("address", "temporal.address"), given("namespace", "temporal.namespace")); err != nil {
		return Config{}, err
	}
	return cfg, nil
}
