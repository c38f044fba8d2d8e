package analysis

import (
	"encoding/json"
	"sort"

	"github.com/clinevo/clinevo/settings"
)

// SettingDiff is one setting two runs were played with differently, by its
// configuration key ("evolver.method", "roles.doctor.model"); "" is a key
// one of them does not have.
type SettingDiff struct {
	Key string `json:"key"`
	A   string `json:"a"`
	B   string `json:"b"`
}

// SettingsDiff lists what differs between the runs a and b were played
// with: their kind, corpus and memory lineage, then every settings key
// (roles included), in key order. A run whose settings were not recorded
// contributes its kind and nothing else.
func SettingsDiff(a, b ComparedRun) []SettingDiff {
	var out []SettingDiff
	add := func(key, x, y string) {
		if x != y {
			out = append(out, SettingDiff{Key: key, A: x, B: y})
		}
	}
	add("kind", a.Kind, b.Kind)
	if !a.SettingsRecorded || !b.SettingsRecorded {
		return out
	}
	add("corpus", a.Corpus, b.Corpus)
	add("memory", a.Memory, b.Memory)
	fa, fb := flatSettings(a.Settings), flatSettings(b.Settings)
	keys := make([]string, 0, len(fa)+len(fb))
	for k := range fa {
		keys = append(keys, k)
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k, fa[k], fb[k])
	}
	return out
}

// flatSettings spells every leaf of s's configuration (its JSON, with the
// configuration file's keys) under its dotted key; a list is one value.
func flatSettings(s settings.Settings) map[string]string {
	out := map[string]string{}
	b, err := json.Marshal(s)
	if err != nil {
		return out // settings are plain data and always marshal; an empty map shows no difference rather than a wrong one
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return out
	}
	flatten("", m, out)
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	if m, ok := v.(map[string]any); ok && len(m) > 0 {
		for k, x := range m {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, x, out)
		}
		return
	}
	if s, ok := v.(string); ok {
		out[prefix] = s
		return
	}
	b, _ := json.Marshal(v) // a value decoded from JSON marshals again
	out[prefix] = string(b)
}
