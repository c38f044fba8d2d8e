// Package bench is the contract between clinevo's engine and the benchmarks
// it plays (ARCHITECTURE.md, "Profiles"). A Benchmark names its actions,
// validates its settings and cases, starts (or rebuilds) an episode, scores
// it and declares the metrics it produces. Everything else a benchmark may
// offer is an optional capability: a small interface declared by the package
// that consumes it (actor.Policy, llm.DoctorFormat, grader.Labeler,
// evolver.Lessons, analysis.Section, view.Explainer, corpus.Builtins,
// rescore.Rescorer, ...) or, when several consume it, here (Describer,
// Roles, Budgeter), asked for with a type assertion on the run's benchmark.
//
// The implementations live under benchmarks/, above every generic package:
// the engine builds a Set of them once and hands it, or the one benchmark a
// run's settings select (Set.Of), down as a value. No package keeps a
// registry and nothing below the engine looks a benchmark up on its own.
package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"

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

// Roles is a benchmark with roles of its own beside the shared ones (a
// capability): each is configured as roles.<name>, built-in unless set to a
// model (llm.RoleMaker builds the model one), and reaches Start in
// episode.Roles.Extra.
type Roles interface {
	Roles() []string
}

// RunRoles lists the roles of a run of benchmark b: the shared roles
// (settings.RoleNames) followed by the ones b adds (Roles). It is the one
// list every consumer iterates (cost plans, roles check, provenance, the
// role descriptions of a run's log); b nil lists the shared roles.
func RunRoles(b Benchmark) []string {
	out := slices.Clone(settings.RoleNames)
	if rs, ok := b.(Roles); ok {
		for _, n := range rs.Roles() {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
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

// RetiredSettings is a benchmark that once had episode keys it no longer
// offers (a capability). A run outlives releases: the settings an older
// clinevo recorded for it carry those keys (a build adds every benchmark's
// keys with their defaults to every run), and every stage checks them again.
// A retired key is accepted in any run's settings; the benchmark that
// retired it reads it where it still means something, the others ignore it.
type RetiredSettings interface {
	RetiredEpisodeKeys() []string
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
