package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clinevo/clinevo/config"
)

// FuzzLoad reads any file as a YAML, TOML or JSON configuration: no panic,
// and a configuration it accepts validates again.
func FuzzLoad(f *testing.F) {
	example, err := os.ReadFile("../clinevo.example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	exts := []string{".yaml", ".toml", ".json"}
	const yaml, toml, json = 0, 1, 2 // each seed in the format it is written in
	f.Add(string(example), uint8(yaml))
	for _, s := range []struct {
		text string
		ext  uint8
	}{
		{"memory:\n  k: 3.7\n", yaml}, {"scoring:\n  lambda: .inf\n", yaml}, {"episode: [unclosed\n", yaml}, {"[memory]\nk = 5\n", toml},
		{"[scoring]\nlambda = inf\n", toml}, {`{"memory": {"k": 5}}`, json}, {`{"memory": {"dim": 1e12}}`, json}, {"roles:\n  doctor: {max_tokens: -1}\n", yaml},
		{"\xef\xbb\xbfmemory:\n  k: 5\n", yaml}, {"a: &a [*a, *a, *a]\n", yaml}, {"\x00", json}, {"memory = 5\n", toml},
		{"profile: sdbench\nepisode:\n  visit_cost: .inf\n  panels: 100000000\n", yaml}, {`{"profile": "klinike", "episode": {"max_steps": 1e9}}`, json},
	} {
		f.Add(s.text, s.ext)
	}
	set := buildSet(f)
	f.Fuzz(func(t *testing.T, in string, ext uint8) {
		p := filepath.Join(t.TempDir(), "c"+exts[int(ext)%len(exts)])
		if err := os.WriteFile(p, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := config.Load(config.New(set), p, set)
		if err != nil {
			return
		}
		if err := c.Validate(set); err != nil {
			t.Fatalf("an accepted configuration does not validate: %v", err)
		}
	})
}
