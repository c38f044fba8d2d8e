package bench

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/actor"
	"github.com/clinevo/clinevo/settings"
)

// Set is the benchmarks a build plays, in name order: the engine builds it
// once (benchmarks/all) and hands it down, or hands down the one benchmark a
// run's settings select (Of). A Set is a value; the zero Set plays none.
type Set struct {
	list []Benchmark
}

// NewSet is the set of bs. Every name must be lower-case, non-empty and
// unique.
func NewSet(bs ...Benchmark) (Set, error) {
	var s Set
	for _, b := range bs {
		name := b.Name()
		if strings.TrimSpace(name) == "" || name != strings.ToLower(strings.TrimSpace(name)) {
			return Set{}, fmt.Errorf("bench: %T: name %q must be lower-case and non-empty", b, name)
		}
		if o, err := s.lookup(name); err == nil {
			return Set{}, fmt.Errorf("bench: %T: name %q is taken by %T", b, name, o)
		}
		s.list = append(s.list, b)
	}
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name() < s.list[j].Name() })
	return s, nil
}

// All are the set's benchmarks in name order.
func (s Set) All() []Benchmark { return slices.Clone(s.list) }

// Names are the set's benchmark names in order.
func (s Set) Names() []string {
	out := make([]string, len(s.list))
	for i, b := range s.list {
		out[i] = b.Name()
	}
	return out
}

func (s Set) lookup(name string) (Benchmark, error) {
	for _, b := range s.list {
		if b.Name() == name {
			return b, nil
		}
	}
	if len(s.list) == 0 {
		return nil, fmt.Errorf("profile %q: this build plays no benchmark", name)
	}
	return nil, fmt.Errorf("profile %q is not available, want one of %s", name, strings.Join(s.Names(), ", "))
}

// Get is the benchmark called name. The empty name is the default profile
// (settings.Default): records and settings from before runs named their
// benchmark are MedEvoEval's.
func (s Set) Get(name string) (Benchmark, error) {
	if name == "" {
		name = settings.Default().Benchmark
	}
	return s.lookup(name)
}

// Of is the benchmark a run's settings select (settings key "profile").
func (s Set) Of(st settings.Settings) (Benchmark, error) { return s.Get(st.Benchmark) }

// Roles lists every role a run of any of the set's benchmarks may configure:
// the shared roles, then each benchmark's own (RunRoles), once each.
func (s Set) Roles() []string {
	out := RunRoles(nil)
	for _, b := range s.list {
		for _, n := range RunRoles(b) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// DefaultSettings are settings.Default with every role of the set at its
// default and every benchmark's episode keys at their defaults: the
// configuration's defaults.
func (s Set) DefaultSettings() settings.Settings {
	st := settings.Default()
	for _, name := range s.Roles() {
		if _, ok := st.Roles[name]; !ok {
			st.Roles[name] = settings.DefaultRole(name)
		}
	}
	for _, b := range s.list {
		es, ok := b.(EpisodeSettings)
		if !ok {
			continue
		}
		vals, err := settings.ExtValues(es.EpisodeDefaults())
		if err != nil {
			continue // a struct of plain values always marshals (the conformance suite reads every default)
		}
		if st.Episode.Ext == nil {
			st.Episode.Ext = map[string]any{}
		}
		for k, v := range vals {
			st.Episode.Ext[k] = v
		}
	}
	return st
}

// ValidateSettings checks a run's settings whole: the shared settings and
// the role names the set knows; then every episode key a benchmark added:
// one no benchmark of the set has is unknown, one of another benchmark must
// keep that benchmark's default (it would be ignored in silence); then what
// the run's benchmark reads of them.
func (s Set) ValidateSettings(st settings.Settings) error {
	b, err := s.Of(st)
	if err != nil {
		return err
	}
	if err := st.Roles.Known(s.Roles()); err != nil {
		return err
	}
	if err := st.Validate(); err != nil {
		return err
	}
	if err := s.checkEpisodeKeys(st, b); err != nil {
		return err
	}
	if err := actor.CheckTextbook(b, b.Name(), st); err != nil {
		return err
	}
	if err := b.Validate(st); err != nil {
		return fmt.Errorf("benchmark %s: %w", b.Name(), err)
	}
	return nil
}

// checkEpisodeKeys checks the benchmark keys under episode of a run of b.
func (s Set) checkEpisodeKeys(st settings.Settings, b Benchmark) error {
	owners := map[string][]Benchmark{}
	var known []string
	retired := map[string]bool{}
	for _, o := range s.list {
		if r, ok := o.(RetiredSettings); ok {
			for _, k := range r.RetiredEpisodeKeys() {
				retired[k] = true
			}
		}
		if es, ok := o.(EpisodeSettings); ok {
			for _, k := range settings.ExtKeys(es.EpisodeDefaults()) {
				owners[k] = append(owners[k], o)
				known = append(known, k)
			}
		}
	}
	for _, k := range sortedKeys(st.Episode.Ext) {
		os := owners[k]
		switch {
		case len(os) == 0 && retired[k]:
			continue // a retired key of a run an older clinevo started
		case len(os) == 0:
			known = append(known, settings.ExtKeys(settings.Episode{})...)
			sort.Strings(known)
			return fmt.Errorf("episode.%s: unknown settings key (known: %s)", k, strings.Join(slices.Compact(known), ", "))
		case slices.ContainsFunc(os, func(o Benchmark) bool { return o.Name() == b.Name() }):
			continue
		}
		if !atDefault(st.Episode.Ext[k], os[0], k) {
			return fmt.Errorf("episode.%s is a setting of benchmark %s; this run's benchmark is %s, which would ignore it", k, os[0].Name(), b.Name())
		}
	}
	return nil
}

// atDefault reports whether v is benchmark o's default for key k. An empty
// list or mapping is the same as none: a configuration file spells a list
// key's default "[]" (clinevo.example.yaml), its defaults "null".
func atDefault(v any, o Benchmark, k string) bool {
	vals, err := settings.ExtValues(o.(EpisodeSettings).EpisodeDefaults())
	if err != nil {
		return false
	}
	a, _ := json.Marshal(v) // JSON data always marshals
	d, _ := json.Marshal(vals[k])
	return string(a) == string(d) || (emptyJSON(a) && emptyJSON(d))
}

func emptyJSON(b []byte) bool {
	s := string(b)
	return s == "null" || s == "[]" || s == "{}"
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
