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
	f.Add(string(example), uint8(0))
	for i, s := range []string{"memory:\n  k: 3.7\n", "scoring:\n  lambda: .inf\n", "episode: [unclosed\n", "[memory]\nk = 5\n", `{"memory": {"k": 5}}`,
		`{"memory": {"dim": 1e12}}`, "roles:\n  doctor: {max_tokens: -1}\n", "\xef\xbb\xbfmemory:\n  k: 5\n", "a: &a [*a, *a, *a]\n", "\x00", "memory = 5\n"} {
		f.Add(s, uint8(i))
	}
	exts := []string{".yaml", ".toml", ".json"}
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
