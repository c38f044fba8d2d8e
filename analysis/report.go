package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

// Input is everything a report reads: the experiment, its conditions' results
// and every episode record by run ID.
type Input struct {
	// Benchmarks are the build's benchmarks: each condition's is the one its
	// settings name.
	Benchmarks bench.Set
	Spec       contract.ExperimentSpec
	Result     contract.ExperimentResult
	Records    map[string][]results.Record
	Settings   map[string]settings.Settings // per stream run, for utility sensitivity
	// Openings holds, by corpus reference and case ID, each case's normalised
	// opening complaint, for the recall/transfer split (encounters.go).
	Openings map[string]map[string]string
	// Run is the experiment's description in the results store: when it was
	// submitted and when its result was stored.
	Run results.Run
	// Breeding is the time and model use of each development child's
	// breeding (EvoPrompt's and GEPA's Breed), by its key
	// (<dev run>/breed): development-phase cost that no episode record holds.
	Breeding map[string]Spent
	// Stream is the spec of the one stream a stream report covers
	// (LoadStream); nil for an experiment.
	Stream *contract.StreamSpec
}

// Spent is activity time by phase and model use by role.
type Spent struct {
	TimeMS map[string]float64       `json:"time_ms,omitempty"`
	Usage  map[string]results.Usage `json:"usage,omitempty"`
}

// DevPhase is a prompt optimiser's development phase (EvoPrompt, GEPA)
// before its stream, in total: the candidates played, their episodes, and
// the time and model use of playing and breeding them. The report adds it,
// spread over the stream's episodes, to the method's update time and model
// use (EvoClinician Table 2 counts optimisation as update cost).
type DevPhase struct {
	Candidates int                `json:"candidates"`
	Episodes   int                `json:"episodes"`
	TimeMS     float64            `json:"time_ms"`
	Tokens     map[string]float64 `json:"tokens,omitempty"`
	ModelUSD   map[string]float64 `json:"model_usd,omitempty"`
}

// DevPhaseKey is the key under which StageMean.Tokens and ModelUSD hold the
// development phase's model use per stream episode (all roles together).
const DevPhaseKey = "development"

// devPhase sums the development phase of stream run: the records of its
// development runs (<run>/dev/...) and their breeding; nil without one.
func devPhase(in Input, run string) *DevPhase {
	var d DevPhase
	add := func(t map[string]float64, u map[string]results.Usage) {
		for _, ms := range t {
			d.TimeMS += ms
		}
		for role, x := range u {
			if d.Tokens == nil {
				d.Tokens, d.ModelUSD = map[string]float64{}, map[string]float64{}
			}
			d.Tokens[role] += float64(x.PromptTokens + x.CompletionTokens)
			d.ModelUSD[role] += x.CostUSD
		}
	}
	var runs []string
	for r := range in.Records {
		if strings.HasPrefix(r, run+"/dev/") {
			runs = append(runs, r)
		}
	}
	sort.Strings(runs) // sums in a fixed order: the same report every time
	for _, r := range runs {
		d.Candidates++
		for _, rec := range in.Records[r] {
			d.Episodes++
			add(rec.TimeMS, rec.Usage)
		}
		if b, ok := in.Breeding[r+"/breed"]; ok {
			add(b.TimeMS, b.Usage)
		}
	}
	if d.Candidates == 0 {
		return nil
	}
	return &d
}

// Report is every number of an experiment's report.
type Report struct {
	// Experiment names the experiment reported; empty for a stream report.
	Experiment string `json:"experiment"`
	// Stream names the one stream a stream report covers (LoadStream).
	Stream      string            `json:"stream,omitempty"`
	Conditions  []ConditionReport `json:"conditions"`
	Retention   []Retention       `json:"retention,omitempty"`
	Transfer    []Transfer        `json:"transfer,omitempty"`
	Updates     []UpdateResponse  `json:"updates,omitempty"`
	Comparisons []Comparison      `json:"comparisons,omitempty"`
	Sensitivity []Sensitivity     `json:"sensitivity,omitempty"`
	// Orderings is the experiment over several orderings of its cases
	// (orderings.go); nil for one played in the published order only.
	Orderings *Orderings `json:"orderings,omitempty"`
	// Epochs are the reducers of every held-out condition played more
	// than once per case (epochs.go); nil without epochs.
	Epochs []Reducers `json:"epochs,omitempty"`
	// Frontiers are the accuracy–cost planes of the benchmarks with a
	// headline cost (frontier.go).
	Frontiers []Frontier `json:"frontiers,omitempty"`
	// Summary are the benchmarks' own lines of the terminal summary
	// (Summarizer).
	Summary []string `json:"summary,omitempty"`
	// Provenance is what the report was made from.
	Provenance *Provenance `json:"provenance,omitempty"`
	// Glossary defines the scores the report shows, per benchmark played.
	Glossary []Glossary `json:"glossary,omitempty"`
	// sections are the benchmarks' own parts (Section), written into
	// report.json under their keys and shown on the page.
	sections []section
}

// ConditionReport summarises one condition.
type ConditionReport struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Run       string `json:"run"`
	Benchmark string `json:"profile,omitempty"` // the run's settings.Benchmark
	// Corpus is the corpus reference the condition played (its own, or the
	// experiment's stream or held-out corpus).
	Corpus       string            `json:"corpus,omitempty"`
	Stages       []StageMean       `json:"stages,omitempty"`
	StageCI      []Interval        `json:"stage_ci_s,omitempty"` // bootstrap 95% interval of S per stage
	Overall      StageMean         `json:"overall"`
	LearningGain *Gain             `json:"learning_gain,omitempty"`
	Trend        MannKendallResult `json:"trend_s"`
	CUSUM        CUSUMResult       `json:"cusum_s"`
	// Stationarity and slope change of the stage series of S (MedEvoEval C.6).
	ADF       ADFResult    `json:"adf_s"`
	Segmented SegmentedFit `json:"segmented_s"`
	// Running are the running means S̄₁:t and C̄₁:t over the stream.
	Running []RunningPoint `json:"running,omitempty"`
	// Encounters tells recall from transfer (encounters.go).
	Encounters *Encounters `json:"encounters,omitempty"`
	// DevPhase is the development phase before the stream (EvoPrompt,
	// GEPA); Overall's update time and its DevPhaseKey model use include it,
	// per stream episode.
	DevPhase *DevPhase        `json:"dev_phase,omitempty"`
	Episodes []results.Record `json:"-"`
	// Bench is the condition's benchmark (Build resolves it from the
	// build's set); nil for one this build does not have.
	Bench bench.Benchmark `json:"-"`
}

// DefinesU reports whether the condition's benchmark declares the utility U
// (MedEvoEval §4 and appendix C.2: U = w1·S − w2·T/Tmax − w3·E/Emax − w4·R).
// A benchmark that declares none has records holding 0, which the report
// prints as "–" and leaves out of every U statistic.
func (c ConditionReport) DefinesU() bool { return bench.ShowsU(c.Bench) }

// Gain is late minus early stage means.
type Gain struct {
	Early, Late []int   `json:"-"`
	S           float64 `json:"s"`
	U           float64 `json:"u"`
	Strict      float64 `json:"strict_accuracy"`
}

// Retention is the retention matrix of a stream and its backward transfer.
type Retention struct {
	Name string       `json:"name"`
	K    int          `json:"k"`
	S    [][]*float64 `json:"a_s"` // S[k-1][j-1] = A[k][j]
	U    [][]*float64 `json:"a_u"`
	BWTS *float64     `json:"bwt_s"`
	BWTU *float64     `json:"bwt_u"`
}

// Transfer compares a held-out condition with mature memory against one without.
type Transfer struct {
	Name     string         `json:"name"`
	Baseline string         `json:"baseline"`
	N        int            `json:"n"`
	ETS      float64        `json:"et_s"`
	ETU      *float64       `json:"et_u"` // nil where a profile defines no U
	ETStrict float64        `json:"et_strict"`
	CI       Interval       `json:"ci_s"`
	Wilcoxon WilcoxonResult `json:"wilcoxon_s"`
	McNemar  float64        `json:"mcnemar_strict_p"`
	Deltas   []float64      `json:"deltas_s"`
	// ByCondition splits ET(S) by whether the case's clinical condition was
	// played in the memory lineage (encounters.go); nil where H3 reads no stream.
	ByCondition *TransferSplit `json:"by_condition,omitempty"`
}

// UpdateResponse is the response of a stream to its update stages.
type UpdateResponse struct {
	Name      string   `json:"name"`
	Pre       float64  `json:"pre_s"`
	Upd       float64  `json:"update_s"`
	Post      float64  `json:"post_s"`
	DeltaUpd  float64  `json:"delta_upd"`
	DeltaPost float64  `json:"delta_post"`
	Recovery  *float64 `json:"recovery,omitempty"` // only where the update stages dropped
}

// Comparison is a paired comparison of two conditions on the same cases
// (MedEvoEval C.6): the case-level differences d_i = Z_i(B) − Z_i(A), their
// mean with a paired bootstrap 95% interval, the Wilcoxon signed-rank test for
// continuous and ordinal metrics and the exact McNemar test for binary ones.
type Comparison struct {
	A        string         `json:"a"` // the baseline
	B        string         `json:"b"`
	Metric   string         `json:"metric"`
	N        int            `json:"n"`
	MeanDiff float64        `json:"mean_diff"` // mean of B − A
	CI       Interval       `json:"ci"`
	Wilcoxon WilcoxonResult `json:"wilcoxon"`
	McNemar  *McNemarResult `json:"mcnemar,omitempty"` // binary metrics
}

// Sensitivity ranks stream conditions by mean U under one set of utility weights.
type Sensitivity struct {
	Weights string    `json:"weights"`
	Ranking []string  `json:"ranking"`
	MeanU   []float64 `json:"mean_u"`
}

// Seed fixes every bootstrap of a report.
const Seed = 7

// Build computes a report.
func Build(in Input) Report {
	rep := Report{Experiment: in.Spec.Name}
	if in.Stream != nil {
		rep.Experiment, rep.Stream = "", in.Stream.RunID
	}
	b := builder{in: in, byName: map[string]contract.ConditionResult{}, withU: map[string]bool{}}
	for _, c := range in.Result.Conditions {
		b.byName[c.Name] = c
	}
	b.conditions(&rep)
	b.transfers(&rep)
	b.epochs(&rep)
	streams := b.comparisons(&rep)
	rep.Sensitivity = sensitivity(in, streams, b.byName)
	encounters(in, &rep)
	rep.Orderings = orderings(in.Spec, rep)
	rep.Frontiers = frontiers(rep)
	rep.sections = sections(in, rep)
	rep.Summary = summaries(rep)
	rep.Provenance = provenance(in)
	var benches []bench.Benchmark
	for _, c := range rep.Conditions {
		benches = append(benches, c.Bench)
	}
	rep.Glossary = Glossaries(benches...)
	return rep
}

// builder is what Build's steps share: the input, each condition's result
// by name and whether its profile defines U.
type builder struct {
	in     Input
	byName map[string]contract.ConditionResult
	withU  map[string]bool
}

// conditions adds each condition's summary, and a stream's retention and
// response to corpus updates.
func (b *builder) conditions(rep *Report) {
	in := b.in
	for _, c := range in.Spec.Conditions {
		res := b.byName[c.Name]
		recs := in.Records[res.Run]
		cr := Condition(c.Name, string(c.Kind), res.Run, recs)
		cr.Benchmark = in.Settings[res.Run].OrDefault().Benchmark
		cr.Corpus = in.Spec.CorpusOf(c)
		cr.Bench, _ = b.in.Benchmarks.Get(cr.Benchmark) // nil for a benchmark this build does not have: the shared numbers only
		if c.Kind == contract.KindStream {
			cr.addDevPhase(devPhase(in, res.Run))
		}
		b.withU[c.Name] = cr.DefinesU()
		rep.Conditions = append(rep.Conditions, cr)
		if c.Kind == contract.KindStream && res.Stream != nil {
			if r := retention(c.Name, res.Run, len(res.Stream.StageEnds), in.Records, cr.DefinesU()); r != nil {
				rep.Retention = append(rep.Retention, *r)
			}
			if len(in.Spec.UpdateStages) > 0 && c.Corpus != "" && c.Corpus != in.Spec.Corpus {
				rep.Updates = append(rep.Updates, updateResponse(c.Name, recs, in.Spec.UpdateStages))
			}
		}
	}
}

// transfers adds the held-out transfer: every H3 condition against the
// experiment's H0 (the first held-out condition that reads no stream).
func (b *builder) transfers(rep *Report) {
	in := b.in
	var h0 *contract.ConditionSpec
	for i, c := range in.Spec.Conditions {
		if c.Kind == "heldout" && c.From == "" {
			h0 = &in.Spec.Conditions[i]
			break
		}
	}
	for _, c := range in.Spec.Conditions {
		if c.Kind == "heldout" && c.From != "" && h0 != nil {
			h3r, h0r := in.Records[b.byName[c.Name].Run], in.Records[b.byName[h0.Name].Run]
			withBoth := b.withU[c.Name] && b.withU[h0.Name]
			rep.Transfer = append(rep.Transfer, transfer(c.Name, h0.Name, h3r, h0r, withBoth))
			rep.Comparisons = append(rep.Comparisons, compare(h0.Name, c.Name, h0r, h3r, withBoth)...)
		}
	}
}

// comparisons adds the comparisons of conditions paired by case with
// another (static vs interactive, MDT study), then of the streams over the
// same cases against the first of them in the same ordering (the
// experiment's orderings), and returns those streams.
func (b *builder) comparisons(rep *Report) []contract.ConditionSpec {
	in := b.in
	for _, c := range in.Spec.Conditions {
		if c.PairedWith != "" {
			rep.Comparisons = append(rep.Comparisons, compare(c.PairedWith, c.Name, in.Records[b.byName[c.PairedWith].Run], in.Records[b.byName[c.Name].Run],
				b.withU[c.PairedWith] && b.withU[c.Name])...)
		}
	}
	var streams []contract.ConditionSpec
	for _, c := range in.Spec.Conditions {
		if c.Kind == "stream" && (c.Corpus == "" || c.Corpus == in.Spec.Corpus) {
			streams = append(streams, c)
		}
	}
	first := map[int]contract.ConditionSpec{} // each ordering's first stream
	for _, c := range streams {
		k := max(c.Ordering, 1)
		f, ok := first[k]
		if !ok {
			first[k] = c
			continue
		}
		base, treat := b.byName[f.Name], b.byName[c.Name]
		rep.Comparisons = append(rep.Comparisons, compare(f.Name, c.Name, in.Records[base.Run], in.Records[treat.Run],
			b.withU[f.Name] && b.withU[c.Name])...)
	}
	return streams
}

// Condition summarises the records of one run as the report does a
// condition: overall means, and for a stream (kind "stream") the stage means
// with their bootstrap intervals, the stage series diagnostics, the running
// means and the learning gain.
func Condition(name, kind, run string, recs []results.Record) ConditionReport {
	cr := ConditionReport{Name: name, Kind: kind, Run: run, Episodes: recs}
	all := StageMeans(recs)
	if len(all) == 0 {
		return cr
	}
	cr.Overall = Overall(recs)
	if kind != string(contract.KindStream) {
		return cr
	}
	cr.Stages = all
	var series []float64
	for _, m := range all {
		series = append(series, m.S)
		cr.StageCI = append(cr.StageCI, BootstrapMean(stageScores(recs, m.Stage), 1000, Seed))
	}
	cr.Trend, cr.CUSUM = MannKendall(series), CUSUM(series)
	cr.ADF, cr.Segmented = ADF(series, ADFDefaultLags, false), Segmented(series)
	cr.Running = Running(recs)
	cr.LearningGain = learningGain(all)
	return cr
}

// addDevPhase records a stream's development phase and adds its time to
// the update time and its model use (DevPhaseKey) per stream episode.
func (cr *ConditionReport) addDevPhase(d *DevPhase) {
	if d == nil || cr.Overall.N == 0 {
		return
	}
	cr.DevPhase = d
	n := float64(cr.Overall.N)
	if cr.Overall.TimeMS == nil {
		cr.Overall.TimeMS = map[string]float64{}
	}
	cr.Overall.TimeMS[results.PhaseUpdate] += d.TimeMS / n
	for role, tok := range d.Tokens {
		if cr.Overall.Tokens == nil {
			cr.Overall.Tokens, cr.Overall.ModelUSD = map[string]float64{}, map[string]float64{}
		}
		cr.Overall.Tokens[DevPhaseKey] += tok / n
		cr.Overall.ModelUSD[DevPhaseKey] += d.ModelUSD[role] / n
	}
}

// Overall are the means of recs taken as one stage (Stage 0).
func Overall(recs []results.Record) StageMean {
	cp := make([]results.Record, len(recs))
	for i, r := range recs {
		r.Stage = 0
		cp[i] = r
	}
	m := StageMeans(cp)[0]
	m.Stage = 0
	return m
}

func stageScores(recs []results.Record, stage int) []float64 {
	var out []float64
	for _, r := range recs {
		if r.Stage == stage {
			out = append(out, r.Scores.S)
		}
	}
	return out
}

// learningGain is the mean of the last third of stages minus the first third (at least one each).
func learningGain(stages []StageMean) *Gain {
	if len(stages) < 2 {
		return nil
	}
	k := max(1, len(stages)/3)
	g := &Gain{}
	var e, l StageMean
	for i := 0; i < k; i++ {
		e.S, e.U, e.Strict = e.S+stages[i].S, e.U+stages[i].U, e.Strict+stages[i].Strict
		last := stages[len(stages)-1-i]
		l.S, l.U, l.Strict = l.S+last.S, l.U+last.U, l.Strict+last.Strict
		g.Early = append(g.Early, stages[i].Stage)
		g.Late = append(g.Late, last.Stage)
	}
	kf := float64(k)
	g.S, g.U, g.Strict = (l.S-e.S)/kf, (l.U-e.U)/kf, (l.Strict-e.Strict)/kf
	return g
}

// retention reads A[j][j] from the stage evaluations and A[k][j] from the
// replays; BWT = mean over j < K of A[K][j] − A[j][j]. Without U (withU
// false) the U matrix and BWT(U) stay nil.
func retention(name, run string, K int, records map[string][]results.Record, withU bool) *Retention {
	if K < 2 {
		return nil
	}
	r := &Retention{Name: name, K: K, S: make([][]*float64, K), U: make([][]*float64, K)}
	found := false
	for k := 1; k <= K; k++ {
		r.S[k-1], r.U[k-1] = make([]*float64, K), make([]*float64, K)
		for j := 1; j <= k; j++ {
			id := contract.ReplayRunID(run, k, j)
			if k == j {
				id = contract.StageEvalRunID(run, j)
			}
			recs := records[id]
			if len(recs) == 0 {
				continue
			}
			m := Overall(recs)
			s, u := m.S, m.U
			r.S[k-1][j-1], r.U[k-1][j-1] = &s, &u
			found = true
		}
	}
	if !found {
		return nil
	}
	bwt := func(a [][]*float64) *float64 {
		var d []float64
		for j := 1; j < K; j++ {
			if a[K-1][j-1] != nil && a[j-1][j-1] != nil {
				d = append(d, *a[K-1][j-1]-*a[j-1][j-1])
			}
		}
		if len(d) == 0 {
			return nil
		}
		m := Mean(d)
		return &m
	}
	r.BWTS, r.BWTU = bwt(r.S), bwt(r.U)
	if !withU {
		r.U, r.BWTU = nil, nil
	}
	return r
}

func byCase(recs []results.Record) map[string]results.Record {
	m := map[string]results.Record{}
	for _, r := range recs {
		m[r.CaseID] = r
	}
	return m
}

// Pairs returns records of a and b paired by case ID, in a's order.
func Pairs(a, b []results.Record) (pa, pb []results.Record) {
	bm := byCase(b)
	for _, r := range a {
		if o, ok := bm[r.CaseID]; ok {
			pa, pb = append(pa, r), append(pb, o)
		}
	}
	return pa, pb
}

// transfer is ET = mean of the per-case differences H3 − H0 (MedEvoEval §4);
// ET(U) only where both profiles define U. A case played several epochs
// counts once, by the mean of its plays (pairedMetric); McNemar's test,
// which needs one outcome per case, reads the first epoch's plays.
func transfer(name, base string, h3, h0 []results.Record, withU bool) Transfer {
	ds := pairedMetric(h3, h0, "S").gains()
	du := pairedMetric(h3, h0, "U").gains()
	dstrict := pairedMetric(h3, h0, "strict").gains()
	t := Transfer{Name: name, Baseline: base, N: len(ds)}
	a, b := Pairs(firstEpoch(h3), firstEpoch(h0))
	bc, cb := 0, 0
	for i := range a {
		switch {
		case a[i].Scores.Strict && !b[i].Scores.Strict:
			bc++
		case !a[i].Scores.Strict && b[i].Scores.Strict:
			cb++
		}
	}
	t.ETS, t.ETStrict = Mean(ds), Mean(dstrict)
	if withU {
		etu := Mean(du)
		t.ETU = &etu
	}
	t.CI, t.Wilcoxon, t.McNemar, t.Deltas = BootstrapMean(ds, 2000, Seed), Wilcoxon(ds), McNemarExact(bc, cb), ds
	return t
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Paired metrics: Wilcoxon on the continuous and ordinal ones, exact McNemar
// on the binary ones (MedEvoEval C.6 and §4 "Statistical comparisons").
var (
	continuousMetrics = []string{"S", "U", "T", "E", "R", "diagnosis"}
	binaryMetrics     = []string{"strict", "pass", "non_dangerous"}
)

// compare pairs two conditions by case, A the baseline and B the treatment,
// and compares every metric: d_i = Z_i(B) − Z_i(A); U only where both
// profiles define it.
// A case played several epochs is one pair, by the mean of its plays
// (pairedMetric); McNemar's test, on one binary outcome per case, is then
// left out.
func compare(an, bn string, a, b []results.Record, withU bool) []Comparison {
	var out []Comparison
	for _, metric := range append(append([]string(nil), continuousMetrics...), binaryMetrics...) {
		if metric == "U" && !withU {
			continue
		}
		p := pairedMetric(a, b, metric)
		if len(p.x) == 0 {
			return nil
		}
		c := Comparison{A: an, B: bn, Metric: metric, N: len(p.x)}
		c.MeanDiff, c.CI, c.Wilcoxon, c.McNemar = paired(p.x, p.y, slices.Contains(binaryMetrics, metric) && !p.epochs)
		out = append(out, c)
	}
	return out
}

// bootstrapResamples is how many resamples every comparison's bootstrap
// interval draws (clinevo's choice: the percentile interval's ends move by
// well under 0.01 between seeds at 2000 on the report's samples).
const bootstrapResamples = 2000

// paired compares the paired values a[i], b[i] of one metric over the same
// cases (MedEvoEval C.6): the mean of d_i = b_i − a_i with its paired
// bootstrap 95% interval and the Wilcoxon signed-rank test of d, and, for a
// binary metric (values 0 or 1), the exact McNemar test; nil otherwise.
func paired(a, b []float64, binary bool) (float64, Interval, WilcoxonResult, *McNemarResult) {
	d := make([]float64, len(a))
	x, y := make([]bool, len(a)), make([]bool, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
		x[i], y[i] = a[i] == 1, b[i] == 1
	}
	var mc *McNemarResult
	if binary {
		if m, err := McNemarPaired(x, y); err == nil { // x and y are paired by construction
			mc = &m
		}
	}
	return Mean(d), BootstrapMean(d, bootstrapResamples, Seed), Wilcoxon(d), mc
}

func metricOf(r results.Record, m string) float64 {
	s := r.Scores
	switch m {
	case "U":
		return s.U
	case "T":
		return float64(s.T)
	case "E":
		return float64(s.E)
	case "R":
		return s.R
	case "diagnosis":
		return s.Diagnosis
	case "strict":
		return boolf(s.Strict)
	case "pass":
		return boolf(s.Pass)
	case "non_dangerous":
		return boolf(s.Diagnosis > 0) // MedEvoEval C.1: grade 0 is a dangerous or clearly wrong diagnosis
	}
	return s.S
}

func updateResponse(name string, recs []results.Record, upd []int) UpdateResponse {
	first, last := upd[0], upd[len(upd)-1]
	var pre, mid, post []float64
	for _, r := range recs {
		switch {
		case r.Stage < first:
			pre = append(pre, r.Scores.S)
		case r.Stage <= last:
			mid = append(mid, r.Scores.S)
		default:
			post = append(post, r.Scores.S)
		}
	}
	u := UpdateResponse{Name: name, Pre: Mean(pre), Upd: Mean(mid), Post: Mean(post)}
	u.DeltaUpd, u.DeltaPost = u.Upd-u.Pre, u.Post-u.Upd
	if u.DeltaUpd < 0 && len(post) > 0 {
		rec := u.DeltaPost / -u.DeltaUpd
		u.Recovery = &rec
	}
	return u
}

// utilityWeights are the alternative weights of the sensitivity analysis: (S, T, E, R).
var utilityWeights = []struct {
	name string
	w    [4]float64
}{
	{"default 0.6/0.2/0.1/0.1", [4]float64{0.6, 0.2, 0.1, 0.1}},
	{"outcome-heavy 0.8/0.1/0.05/0.05", [4]float64{0.8, 0.1, 0.05, 0.05}},
	{"cost-averse 0.5/0.25/0.2/0.05", [4]float64{0.5, 0.25, 0.2, 0.05}},
	{"outcome only 1/0/0/0", [4]float64{1, 0, 0, 0}},
}

// sensitivity re-ranks stream conditions by mean U recomputed from the same
// records under alternative utility weights; only the streams whose profile
// defines U.
func sensitivity(in Input, all []contract.ConditionSpec, byName map[string]contract.ConditionResult) []Sensitivity {
	var streams []contract.ConditionSpec
	for _, c := range all {
		if b, _ := in.Benchmarks.Of(in.Settings[byName[c.Name].Run].OrDefault()); bench.ShowsU(b) {
			streams = append(streams, c)
		}
	}
	if len(streams) < 2 {
		return nil
	}
	var out []Sensitivity
	for _, uw := range utilityWeights {
		type row struct {
			name string
			u    float64
		}
		var rows []row
		for _, c := range streams {
			run := byName[c.Name].Run
			env := in.Settings[run].OrDefault().Episode
			var us []float64
			for _, r := range in.Records[run] {
				s := r.Scores
				u := uw.w[0]*s.S - uw.w[1]*float64(s.T)/float64(env.MaxTurns) - uw.w[3]*s.R
				if env.MaxTests > 0 {
					u -= uw.w[2] * float64(s.E) / float64(env.MaxTests)
				}
				us = append(us, u)
			}
			rows = append(rows, row{c.Name, Mean(us)})
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].u > rows[j].u })
		s := Sensitivity{Weights: uw.name}
		for _, r := range rows {
			s.Ranking = append(s.Ranking, r.name)
			s.MeanU = append(s.MeanU, r.u)
		}
		out = append(out, s)
	}
	return out
}

// label formats an optional number.
func label(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.3f", *p)
}
