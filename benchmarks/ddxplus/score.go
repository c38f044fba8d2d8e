package ddxplus

import (
	"math"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
)

// DiffAt is the probability above which a pathology of a differential counts
// as in it: the release's metric code (code/basd/metrics.py, compute_metrics,
// tres = 0.01), behind DDXPlus Table 3's differential metrics.
const DiffAt = 0.01

// Scores scores an encounter in a mode: accuracy (the first pathology the
// doctor names is the patient's, StreamBench's metric for DDXPlus, Table 1
// and appendix F.2.6; DDXPlus's GTPA@1) in both modes, S = accuracy;
// interactively also DDXPlus's differential and evidence metrics
// (Differential). T counts every turn, the closing one included.
func (d *Dictionary) Scores(c *clinic.Case, mode string, diagnosis []string, events []clinic.Event) clinic.Scores {
	named := d.ResolveAll(diagnosis)
	acc := 0.0
	if len(named) > 0 && named[0] == c.Manager.Diagnosis.Name {
		acc = 1
	}
	sc := clinic.Scores{S: acc, Diagnosis: acc, Strict: acc == 1, Pass: acc == 1, T: len(events),
		Referral: grader.ReferralNotScored, MustAsk: 1, Required: 1, Metrics: map[string]float64{"accuracy": acc}}
	if mode == ModeInteractive {
		for k, v := range Differential(c, named, events) {
			sc.Metrics[k] = v
		}
	}
	return sc
}

// Differential are DDXPlus's interactive metrics (Table 3) for the doctor's
// named pathologies: with G the ground-truth differential (pathologies above
// DiffAt) and P the pathologies the doctor named (it gives no
// probabilities, so every one it names counts),
//
//	DDR = |G∩P| / max(1, |G|), DDP = |G∩P| / max(1, |P|), DDF1 = 2·DDP·DDR / (DDP + DDR),
//	GTPA = 1 when the patient's pathology is in P,
//	PER = |E∩Q| / max(1, |E|),
//
// E the patient's evidences and Q those the doctor knows of: the initial
// evidence and every evidence a question asked about (the max(1, ·) guards
// are the release's code's).
func Differential(c *clinic.Case, named []string, events []clinic.Event) map[string]float64 {
	g := map[string]bool{}
	for _, w := range KeyOf(c).Differential {
		if w.Probability > DiffAt {
			g[w.Pathology] = true
		}
	}
	both, gtpa := 0, 0.0
	for _, p := range named {
		if g[p] {
			both++
		}
		if p == c.Manager.Diagnosis.Name {
			gtpa = 1
		}
	}
	ddr := float64(both) / math.Max(1, float64(len(g)))
	ddp := float64(both) / math.Max(1, float64(len(named)))
	ddf1 := 0.0
	if ddr+ddp > 0 {
		ddf1 = 2 * ddp * ddr / (ddp + ddr)
	}
	rec := RecordOf(c)
	asked := map[string]bool{rec.Initial: true}
	for _, ev := range events {
		if ev.Action == clinic.Ask && ev.Topic != "" {
			asked[ev.Topic] = true
		}
	}
	found := 0
	for _, f := range rec.Findings {
		if asked[f.Code] {
			found++
		}
	}
	per := float64(found) / math.Max(1, float64(len(rec.Findings)))
	return map[string]float64{"ddr": ddr, "ddp": ddp, "ddf1": ddf1, "gtpa": gtpa, "per": per}
}

// Metrics are accuracy in both modes and DDXPlus's differential and
// evidence metrics in interactive mode.
func (Benchmark) Metrics() []bench.Metric {
	inf := math.Inf(1)
	return []bench.Metric{
		{Name: "accuracy", Title: "accuracy", Min: 0, Max: 1, Headline: true,
			Doc: "1 when the first pathology the doctor names is the patient's: StreamBench's metric for DDXPlus, Σ 1(ŷ_t = y_t)/T over the stream (Wu et al. 2024, Table 1, appendix F.2.6); DDXPlus's GTPA@1 (Fansi Tchango et al. 2022, Table 3)"},
		{Name: "s", Shared: true, Title: "S", Min: 0, Max: 1, Doc: "accuracy, for the shared running means and the learner's score"},
		{Name: "diagnosis", Shared: true, Title: "S_diag", Min: 0, Max: 1, Doc: "accuracy"},
		{Name: "strict", Shared: true, Title: "strict", Min: 0, Max: 1, Doc: "accuracy: the feedback fb_t ∈ {0, 1} (StreamBench §3.1)"},
		{Name: "pass", Shared: true, Title: "pass", Min: 0, Max: 1, Doc: "accuracy: the feedback fb_t ∈ {0, 1} (StreamBench §3.1)"},
		{Name: "t", Shared: true, Title: "turns", Min: 0, Max: inf, Direction: bench.LowerBetter,
			Doc: "every turn, the closing one included: the questions asked plus one, as DDXPlus Table 3's interaction length IL is counted in the release's code (interactive mode; 1 in stream mode)"},
		{Name: "per", Title: "PER", Min: 0, Max: 1,
			Doc: "positive evidence recall: the share of the patient's evidences the doctor asked about, the initial one counted as known (DDXPlus Table 3; interactive mode)"},
		{Name: "gtpa", Title: "GTPA", Min: 0, Max: 1,
			Doc: "1 when the patient's pathology is in the doctor's differential (DDXPlus Table 3; interactive mode)"},
		{Name: "ddr", Title: "DDR", Min: 0, Max: 1, Headline: true,
			Doc: "differential recall |G∩P|/|G|, G the ground-truth differential above probability 0.01, P the pathologies the doctor names (DDXPlus Table 3; interactive mode)"},
		{Name: "ddp", Title: "DDP", Min: 0, Max: 1,
			Doc: "differential precision |G∩P|/|P| (DDXPlus Table 3; interactive mode)"},
		{Name: "ddf1", Title: "DDF1", Min: 0, Max: 1, Headline: true,
			Doc: "the harmonic mean of DDR and DDP (DDXPlus Table 3; interactive mode)"},
	}
}
