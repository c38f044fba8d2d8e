// Package bench is the seam between clinevo's engine and the benchmarks it
// plays (ARCHITECTURE.md, "Profiles"). A Benchmark names its actions,
// validates its settings and cases, starts (or rebuilds) an episode, scores
// it and declares the metrics it produces. Everything else a benchmark may
// offer is an optional capability: a small interface declared by the package
// that consumes it (actor.Policy, llm.DoctorFormat, grader.Labeler,
// evolver.Lessons, analysis.Section, view.Explainer, corpus.Builtins,
// rescore.Rescorer, ...), asked for with a type assertion on the run's
// benchmark. So no generic package names a benchmark, and a new benchmark is
// one folder under bench/ plus one line in the engine's registration.
//
// A run's benchmark is its settings' Profile (settings key "profile"): read
// it with Of, never guess it from what a view, the events or the metrics
// happen to hold.
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// Benchmark is one benchmark environment: the core every benchmark
// implements. Methods never call a role except through Start's roles and
// Score's judge.
type Benchmark interface {
	// Name is the settings value that selects it ("profile").
	Name() string
	// Actions are the actions the doctor may take in a run with s, in the
	// order the benchmark presents them.
	Actions(s settings.Settings) []clinic.ActionKind
	// Validate checks what the benchmark reads of s beyond the shared
	// settings (settings.Settings.Validate checks those); the error names the
	// key.
	Validate(s settings.Settings) error
	// ValidateCase checks that c has the shape the benchmark plays; the error
	// names the field.
	ValidateCase(c *clinic.Case) error
	// Start begins an episode of c, or rebuilds one from its events without
	// calling any role (so a retried activity continues where it stopped).
	Start(c clinic.Case, s settings.Settings, roles episode.Roles, events []clinic.Event) (episode.Env, error)
	// Score scores a finished episode against the case's answer key.
	Score(ctx context.Context, in ScoreInput) (clinic.Scores, error)
	// Metrics declares every score the benchmark produces (see Metric).
	Metrics() []Metric
}

// ScoreInput is what scoring reads: the case with its answer key, the run's
// settings, the finished episode, and the run's judge.
type ScoreInput struct {
	Case     *clinic.Case
	Settings settings.Settings
	Env      episode.Env
	// Judge is the run's judge; nil is the benchmark's built-in one. A judge
	// that lacks a method the benchmark needs is refused at start
	// (JudgeChecker), never replaced by the rubric in silence.
	Judge grader.Judge
}

// Direction says which way a metric improves.
type Direction int

// Directions of a metric.
const (
	HigherBetter Direction = iota
	LowerBetter
)

// Metric declares one score a benchmark produces.
type Metric struct {
	// Name is the metric's key: a key of clinic.Scores.Metrics, or, with
	// Shared set, the JSON name of a shared field of clinic.Scores ("s",
	// "strict", "pass", "grade", "u", "t", "e", "r", "cost_usd", ...).
	Name   string
	Shared bool
	// Title is how reports print it ("Dx", "strict pass@1").
	Title string
	// Min and Max bound its values; Direction says which way is better.
	Min, Max  float64
	Direction Direction
	// Headline marks the metrics a report leads with.
	Headline bool
	// Doc defines it, citing the paper and section.
	Doc string
}

// Declares reports whether ms declares the metric name (shared or not).
func Declares(ms []Metric, name string) bool {
	return slices.ContainsFunc(ms, func(m Metric) bool { return m.Name == name })
}

// JudgeChecker is a benchmark that needs more of a judge than grader.Judge:
// CheckJudge says what a run's judge lacks, at start.
type JudgeChecker interface {
	CheckJudge(j grader.Judge) error
}

// CheckJudge is b's verdict on a run's judge; nil (the built-in judge) always
// passes.
func CheckJudge(b Benchmark, j grader.Judge) error {
	if jc, ok := b.(JudgeChecker); ok && j != nil {
		if err := jc.CheckJudge(j); err != nil {
			return fmt.Errorf("benchmark %s: judge: %w", b.Name(), err)
		}
	}
	return nil
}

// registry is the set of benchmarks this process plays. It is filled by
// explicit Register calls (the engine's wiring), never by init functions.
var registry = struct {
	sync.RWMutex
	m map[string]Benchmark
}{m: map[string]Benchmark{}}

// Register adds b. Registering the same benchmark again is a no-op; another
// benchmark under a taken name is an error.
func Register(b Benchmark) error {
	name := b.Name()
	if strings.TrimSpace(name) == "" || name != strings.ToLower(strings.TrimSpace(name)) {
		return fmt.Errorf("bench: register %T: name %q must be lower-case and non-empty", b, name)
	}
	registry.Lock()
	defer registry.Unlock()
	if old, ok := registry.m[name]; ok {
		if fmt.Sprintf("%T", old) == fmt.Sprintf("%T", b) {
			return nil
		}
		return fmt.Errorf("bench: register %T: name %q is taken by %T", b, name, old)
	}
	registry.m[name] = b
	if rs, ok := b.(Roles); ok {
		settings.AddRoles(rs.Roles()...)
	}
	return nil
}

// Roles is a benchmark with roles of its own beside the shared ones (a
// capability): each is configured as roles.<name>, built-in unless set to a
// model (llm.RoleMaker builds the model one), and reaches Start in
// episode.Roles.Extra.
type Roles interface {
	Roles() []string
}

// Get returns the benchmark registered under name.
func Get(name string) (Benchmark, error) {
	registry.RLock()
	b, ok := registry.m[name]
	registry.RUnlock()
	if !ok {
		if len(Names()) == 0 {
			return nil, fmt.Errorf("profile %q: no benchmark is registered in this process (the engine registers them: engine.RegisterBenchmarks)", name)
		}
		return nil, fmt.Errorf("profile %q is not available, want one of %s", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Of returns the benchmark a run's settings select.
func Of(s settings.Settings) (Benchmark, error) { return Get(s.Profile) }

// Names lists the registered benchmarks in name order.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.m))
	for n := range registry.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// All returns the registered benchmarks in name order.
func All() []Benchmark {
	var out []Benchmark
	for _, n := range Names() {
		b, _ := Get(n) // listed, so registered
		out = append(out, b)
	}
	return out
}

// EpisodeSettings is a benchmark with episode keys of its own (a
// capability): EpisodeDefaults is a struct value whose json-tagged fields
// are its keys under episode (episode.max_steps) with their defaults. The
// benchmark reads them with settings.Episode.Decode over these defaults.
type EpisodeSettings interface {
	EpisodeDefaults() any
}

// DefaultSettings are settings.Default with every registered benchmark's
// episode keys at their defaults: the configuration's defaults.
func DefaultSettings() settings.Settings {
	s := settings.Default()
	for _, b := range All() {
		es, ok := b.(EpisodeSettings)
		if !ok {
			continue
		}
		vals, err := settings.ExtValues(es.EpisodeDefaults())
		if err != nil {
			continue // a struct of plain values always marshals (the conformance suite reads every default)
		}
		if s.Episode.Ext == nil {
			s.Episode.Ext = map[string]any{}
		}
		for k, v := range vals {
			s.Episode.Ext[k] = v
		}
	}
	return s
}

// ValidateSettings checks a run's settings whole: the shared settings; then
// every episode key a benchmark added: one no registered benchmark has is
// unknown, one of another benchmark must keep that benchmark's default (it
// would be ignored in silence); then what the run's benchmark reads of them.
func ValidateSettings(s settings.Settings) error {
	b, err := Of(s)
	if err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	owners := map[string][]Benchmark{}
	var known []string
	for _, o := range All() {
		if es, ok := o.(EpisodeSettings); ok {
			for _, k := range settings.ExtKeys(es.EpisodeDefaults()) {
				owners[k] = append(owners[k], o)
				known = append(known, k)
			}
		}
	}
	for _, k := range sortedKeys(s.Episode.Ext) {
		os := owners[k]
		switch {
		case len(os) == 0:
			known = append(known, settings.ExtKeys(settings.Episode{})...)
			sort.Strings(known)
			return fmt.Errorf("episode.%s: unknown settings key (known: %s)", k, strings.Join(slices.Compact(known), ", "))
		case slices.ContainsFunc(os, func(o Benchmark) bool { return o.Name() == b.Name() }):
			continue
		}
		if !atDefault(s.Episode.Ext[k], os[0], k) {
			return fmt.Errorf("episode.%s is a setting of benchmark %s; this run's benchmark is %s, which would ignore it", k, os[0].Name(), b.Name())
		}
	}
	if err := b.Validate(s); err != nil {
		return fmt.Errorf("benchmark %s: %w", b.Name(), err)
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

// Budget is one per-episode budget of a run, as tables print it.
type Budget struct{ Name, Value string }

// Budgeter is a benchmark that names its per-episode budgets under settings
// s (a capability): "Tmax 10", "steps 32". Without one, a run shows none.
type Budgeter interface {
	Budgets(s settings.Settings) []Budget
}

// Budgets spells b's budgets under s: "Tmax 10, Emax 3, MDT consultant", or
// "-" for none.
func Budgets(b Benchmark, s settings.Settings) string {
	bg, ok := b.(Budgeter)
	if !ok {
		return "-"
	}
	var parts []string
	for _, x := range bg.Budgets(s) {
		parts = append(parts, x.Name+" "+x.Value)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
