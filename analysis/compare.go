package analysis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// ComparedRun is one run of a comparison (`clinevo compare`): its scored
// episodes and what it was played with, as its recorded spec says.
type ComparedRun struct {
	Run       string `json:"run"`
	Kind      string `json:"kind"`
	Benchmark string `json:"profile"`
	Corpus    string `json:"corpus,omitempty"`
	Episodes  int    `json:"episodes"`
	// SettingsRecorded is false for a run no recorded spec names (a held-out
	// run of an older build): its settings are then unknown, not the defaults.
	SettingsRecorded bool              `json:"settings_recorded"`
	Settings         settings.Settings `json:"-"`
	// Memory is the memory the run read (memoryOf).
	Memory  string           `json:"memory"`
	Records []results.Record `json:"-"`
	// Bench is the run's benchmark; nil for one this build does not have.
	Bench bench.Benchmark `json:"-"`
}

// LoadCompared reads runs (IDs as `runs list` shows them: streams, held-out
// runs, stage evaluations, replays) with their records and settings. A run
// named twice, one the store does not hold or one without a scored episode
// is an error wrapping results.ErrNotFound (the caller's bad input) that
// names it.
func LoadCompared(ctx context.Context, store results.Store, set bench.Set, runs []string) ([]ComparedRun, error) {
	described, _, err := store.Runs(ctx)
	if err != nil {
		return nil, fmt.Errorf("compare: list runs: %w", err)
	}
	out := make([]ComparedRun, 0, len(runs))
	for i, run := range runs {
		if slices.Contains(runs[:i], run) {
			return nil, fmt.Errorf("compare: run %s is named twice: %w", run, results.ErrNotFound)
		}
		recs, err := store.Records(ctx, run)
		if err != nil {
			return nil, fmt.Errorf("compare: records of %s: %w", run, err)
		}
		if len(recs) == 0 {
			if slices.ContainsFunc(described, func(r results.Run) bool { return r.Run == run }) {
				return nil, fmt.Errorf("compare: run %s has no scored episode yet: %w", run, results.ErrNotFound)
			}
			return nil, fmt.Errorf("compare: run %q is not in the results store (see clinevo runs list): %w", run, results.ErrNotFound)
		}
		cr := ComparedRun{Run: run, Kind: recs[0].Kind, Episodes: len(recs), Records: recs}
		src, err := results.SourceOfRun(ctx, store, run)
		switch {
		case err == nil:
			cr.SettingsRecorded, cr.Corpus, cr.Memory = true, src.Corpus, memoryOf(run, src.MemoryRuns)
			cr.Settings = src.Settings.OrDefault()
		case errors.Is(err, results.ErrNotFound):
			cr.Settings = settings.Default() // only to find a benchmark: the records are the default profile's
		default:
			return nil, fmt.Errorf("compare: settings of %s: %w", run, err)
		}
		cr.Benchmark = cr.Settings.Benchmark
		cr.Bench, _ = set.Of(cr.Settings) // nil for a benchmark this build does not have: S alone is compared
		out = append(out, cr)
	}
	return out, nil
}

// memoryOf spells the memory lineage a run read: "none" (memory disabled,
// or a held-out run without memory), "own" (a stream's own cards), or the
// runs it read, with "own" last for a stream that carried memory forward.
// A stream's lineage always holds itself, which alone tells no two streams
// apart.
func memoryOf(run string, lineage []string) string {
	if len(lineage) == 0 {
		return "none"
	}
	self := contract.StreamOfRunID(run)
	var parts []string
	own := false
	for _, r := range lineage {
		if r == self {
			own = true
			continue
		}
		parts = append(parts, r)
	}
	if own {
		parts = append(parts, "own")
	}
	return strings.Join(parts, ", ")
}

// RunComparison is `clinevo compare`: the first run against each other one.
type RunComparison struct {
	Runs  []ComparedRun `json:"runs"`
	Pairs []PairDiff    `json:"pairs"`
	// BootstrapSeed and Resamples fix every bootstrap interval.
	BootstrapSeed int `json:"bootstrap_seed"`
	Resamples     int `json:"bootstrap_resamples"`
}

// PairDiff compares run B with run A (the baseline): the settings that
// differ, then every metric both benchmarks declare, over the cases both
// played (Paired) or, when they share none, over all their episodes.
type PairDiff struct {
	A        string        `json:"a"`
	B        string        `json:"b"`
	Settings []SettingDiff `json:"settings_diff"`
	// Paired says the metrics pair episodes by case (Shared pairs); OnlyA
	// and OnlyB count the episodes left out of the pairing.
	Paired bool         `json:"paired"`
	Shared int          `json:"shared_cases"`
	OnlyA  int          `json:"only_a"`
	OnlyB  int          `json:"only_b"`
	Notes  []string     `json:"notes,omitempty"`
	Metric []MetricDiff `json:"metrics"`
	// Stages compare stage by stage where both runs are streams.
	Stages []StageDiff `json:"stages,omitempty"`
	// Disagreements are the paired cases with the largest |ΔS|, largest
	// first (at most MaxDisagreements).
	Disagreements []CaseDiff `json:"disagreements,omitempty"`
}

// MetricDiff is one metric of B against A. Paired: the mean of the
// case-level differences d_i = Z_i(B) − Z_i(A) with a paired bootstrap 95%
// interval, the Wilcoxon signed-rank test of d and, for a binary metric, the
// exact McNemar test (MedEvoEval C.6). Unpaired: mean(B) − mean(A) with an
// unpaired bootstrap interval and no test.
type MetricDiff struct {
	Metric      string          `json:"metric"`
	Title       string          `json:"title"`
	Headline    bool            `json:"headline,omitempty"`
	LowerBetter bool            `json:"lower_better,omitempty"`
	Paired      bool            `json:"paired"`
	NA          int             `json:"n_a"`
	NB          int             `json:"n_b"`
	MeanA       float64         `json:"mean_a"`
	MeanB       float64         `json:"mean_b"`
	MeanDiff    float64         `json:"mean_diff"`
	CI          Interval        `json:"ci"`
	Wilcoxon    *WilcoxonResult `json:"wilcoxon,omitempty"`
	McNemar     *McNemarResult  `json:"mcnemar,omitempty"`
}

// StageDiff is the metrics of one stage both streams played.
type StageDiff struct {
	Stage   int          `json:"stage"`
	Paired  bool         `json:"paired"`
	Metrics []MetricDiff `json:"metrics"`
}

// CaseDiff is one case both runs played, with each run's episode.
type CaseDiff struct {
	CaseID   string  `json:"case_id"`
	EpisodeA string  `json:"episode_a"`
	EpisodeB string  `json:"episode_b"`
	SA       float64 `json:"s_a"`
	SB       float64 `json:"s_b"`
	Delta    float64 `json:"delta_s"`
}

// MaxDisagreements is how many cases a comparison lists where the runs
// disagree most (clinevo's choice: a screen's worth).
const MaxDisagreements = 10

// CompareRuns compares runs[0] with each other run.
func CompareRuns(runs []ComparedRun) RunComparison {
	out := RunComparison{Runs: runs, BootstrapSeed: Seed, Resamples: bootstrapResamples}
	for _, b := range runs[min(1, len(runs)):] {
		out.Pairs = append(out.Pairs, ComparePair(runs[0], b))
	}
	return out
}

// ComparePair compares run b with run a.
func ComparePair(a, b ComparedRun) PairDiff {
	p := PairDiff{A: a.Run, B: b.Run, Settings: SettingsDiff(a, b)}
	for _, r := range []ComparedRun{a, b} {
		if !r.SettingsRecorded {
			p.Notes = append(p.Notes, fmt.Sprintf("no recorded spec names %s: its settings are unknown", r.Run))
		}
	}
	metrics, note := sharedMetrics(a.Bench, b.Bench)
	if note != "" {
		p.Notes = append(p.Notes, note)
	}
	p.Notes = append(p.Notes, servedApart(a, b)...)
	pa, pb := pairByCase(a.Records, b.Records)
	p.Paired, p.Shared, p.OnlyA, p.OnlyB = len(pa) > 0, len(pa), len(a.Records)-len(pa), len(b.Records)-len(pb)
	p.Metric = diffMetrics(metrics, a.Records, b.Records)
	if a.Kind == string(contract.KindStream) && b.Kind == string(contract.KindStream) {
		p.Stages = diffStages(metrics, a.Records, b.Records)
	}
	p.Disagreements = disagreements(pa, pb)
	return p
}

// servedApart warns, role by role, where the providers' replies of a and b
// carried different system fingerprints: the same model name served by a
// changed backend, which can move a difference as much as a changed setting.
// A role without fingerprints on either side (built-in, or a provider that
// sends none) says nothing.
func servedApart(a, b ComparedRun) []string {
	fa, fb := Fingerprints(a.Records), Fingerprints(b.Records)
	var notes []string
	for _, role := range slices.Sorted(maps.Keys(fa)) {
		if len(fb[role]) > 0 && !slices.Equal(fa[role], fb[role]) {
			notes = append(notes, fmt.Sprintf("warning: %s's replies came from different system fingerprints: %s in %s, %s in %s",
				role, strings.Join(fa[role], ", "), a.Run, strings.Join(fb[role], ", "), b.Run))
		}
	}
	return notes
}

// sharedMetrics are the metrics a's benchmark declares that b's declares
// too, in a's order, with a note when the benchmarks differ; S alone when
// either is a benchmark this build does not have.
func sharedMetrics(a, b bench.Benchmark) ([]bench.Metric, string) {
	s := []bench.Metric{{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Headline: true}}
	if a == nil || b == nil {
		return s, "a benchmark this build does not have: S alone is compared"
	}
	if a.Name() == b.Name() {
		return a.Metrics(), ""
	}
	var out []bench.Metric
	for _, m := range a.Metrics() {
		if i := slices.IndexFunc(b.Metrics(), func(o bench.Metric) bool { return o.Name == m.Name && o.Shared == m.Shared }); i >= 0 {
			out = append(out, m)
		}
	}
	return out, fmt.Sprintf("benchmarks %s and %s: only the metrics both declare are compared", a.Name(), b.Name())
}

// pairByCase pairs the records of a and b that played the same case, in
// a's order: the k-th episode of a case in a with the k-th of it in b (a
// run that plays a case twice, over passes, pairs pass with pass).
func pairByCase(a, b []results.Record) (pa, pb []results.Record) {
	type key struct {
		id string
		n  int
	}
	keys := func(recs []results.Record) []key {
		seen := map[string]int{}
		out := make([]key, len(recs))
		for i, r := range recs {
			seen[r.CaseID]++
			out[i] = key{r.CaseID, seen[r.CaseID]}
		}
		return out
	}
	inB := map[key]int{}
	for i, k := range keys(b) {
		inB[k] = i
	}
	for i, k := range keys(a) {
		if j, ok := inB[k]; ok {
			pa, pb = append(pa, a[i]), append(pb, b[j])
		}
	}
	return pa, pb
}

// diffMetrics compares each metric over the cases a and b share, or over
// all their episodes when they share none.
func diffMetrics(metrics []bench.Metric, a, b []results.Record) []MetricDiff {
	pa, pb := pairByCase(a, b)
	out := make([]MetricDiff, 0, len(metrics))
	for _, m := range metrics {
		d := MetricDiff{Metric: m.Name, Title: m.Title, Headline: m.Headline, LowerBetter: m.Direction == bench.LowerBetter}
		if len(pa) > 0 {
			d.pairedDiff(m, pa, pb)
		} else {
			d.unpairedDiff(m, a, b)
		}
		out = append(out, d)
	}
	return out
}

// pairedDiff fills d from the pairs that both define m.
func (d *MetricDiff) pairedDiff(m bench.Metric, pa, pb []results.Record) {
	var x, y []float64
	for i := range pa {
		va, okA := ScoreValue(pa[i].Scores, m)
		vb, okB := ScoreValue(pb[i].Scores, m)
		if okA && okB {
			x, y = append(x, va), append(y, vb)
		}
	}
	d.Paired, d.NA, d.NB, d.MeanA, d.MeanB = true, len(x), len(y), Mean(x), Mean(y)
	if len(x) == 0 {
		return
	}
	var w WilcoxonResult
	d.MeanDiff, d.CI, w, d.McNemar = paired(x, y, binary(m, x, y))
	d.Wilcoxon = &w
}

// unpairedDiff fills d from every episode of a and b that defines m.
func (d *MetricDiff) unpairedDiff(m bench.Metric, a, b []results.Record) {
	values := func(recs []results.Record) []float64 {
		var out []float64
		for _, r := range recs {
			if v, ok := ScoreValue(r.Scores, m); ok {
				out = append(out, v)
			}
		}
		return out
	}
	x, y := values(a), values(b)
	d.NA, d.NB, d.MeanA, d.MeanB = len(x), len(y), Mean(x), Mean(y)
	d.MeanDiff = d.MeanB - d.MeanA
	d.CI = BootstrapDiff(x, y, bootstrapResamples, Seed)
}

// binary reports whether m is a 0/1 outcome on these episodes, so that
// McNemar applies: declared on [0, 1] with every value 0 or 1, and either the
// shared pass or strict or a metric seen taking both values (a benchmark's
// own pass@1; not a rate such as R that merely stayed at 0).
func binary(m bench.Metric, xs ...[]float64) bool {
	if m.Min != 0 || m.Max != 1 {
		return false
	}
	seen := map[float64]bool{}
	for _, vs := range xs {
		for _, v := range vs {
			if v != 0 && v != 1 {
				return false
			}
			seen[v] = true
		}
	}
	return (m.Shared && (m.Name == "pass" || m.Name == "strict")) || len(seen) == 2
}

// diffStages compares the stages both streams played, stage by stage.
func diffStages(metrics []bench.Metric, a, b []results.Record) []StageDiff {
	byStage := func(recs []results.Record) map[int][]results.Record {
		m := map[int][]results.Record{}
		for _, r := range recs {
			m[r.Stage] = append(m[r.Stage], r)
		}
		return m
	}
	sa, sb := byStage(a), byStage(b)
	var stages []int
	for s := range sa {
		if _, ok := sb[s]; ok {
			stages = append(stages, s)
		}
	}
	sort.Ints(stages)
	out := make([]StageDiff, 0, len(stages))
	for _, s := range stages {
		ms := diffMetrics(metrics, sa[s], sb[s])
		out = append(out, StageDiff{Stage: s, Paired: len(ms) > 0 && ms[0].Paired, Metrics: ms})
	}
	return out
}

// disagreements are the pairs with the largest |S(B) − S(A)|, largest
// first (ties by case ID), at most MaxDisagreements, none equal.
func disagreements(pa, pb []results.Record) []CaseDiff {
	var out []CaseDiff
	for i := range pa {
		d := CaseDiff{CaseID: pa[i].CaseID, EpisodeA: pa[i].EpisodeID, EpisodeB: pb[i].EpisodeID, SA: pa[i].Scores.S, SB: pb[i].Scores.S}
		d.Delta = d.SB - d.SA
		if math.Abs(d.Delta) >= DiffResolution {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := math.Abs(out[i].Delta), math.Abs(out[j].Delta)
		if math.Abs(di-dj) >= DiffResolution {
			return di > dj
		}
		return out[i].CaseID < out[j].CaseID
	})
	return out[:min(len(out), MaxDisagreements)]
}
