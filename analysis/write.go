package analysis

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/clinic"
)

// Files lists what Write produces in the output directory.
var Files = []string{"index.html", "report.json", "stages.csv", "episodes.csv", "retention.csv", "transfer.csv", "comparisons.csv",
	"encounters.csv", "trajectories.jsonl", "steps.jsonl"}

// TraceOf fetches an episode's trace for the trajectory exports.
type TraceOf func(episodeID string) (clinic.Trace, error)

// Write writes the report into dir: a self-contained HTML page with inline SVG
// charts, CSV and JSON of every number, one JSON file per episode (linked from
// the page), and trajectory and step JSONL for policy-training research.
func Write(dir string, rep Report, traces TraceOf) error {
	if err := os.MkdirAll(filepath.Join(dir, "episodes"), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := writeFile(dir, "report.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}); err != nil {
		return err
	}
	for name, rows := range csvTables(rep) {
		if err := writeFile(dir, name, func(w io.Writer) error { cw := csv.NewWriter(w); cw.WriteAll(rows); return cw.Error() }); err != nil {
			return err
		}
	}
	if err := writeEpisodes(dir, rep, traces); err != nil {
		return err
	}
	return writeFile(dir, "index.html", func(w io.Writer) error {
		return page.Execute(w, view(rep, func(id string) string { return "episodes/" + EpisodeFile(id) }))
	})
}

// writeFile writes the file name of dir with fn.
func writeFile(dir, name string, fn func(io.Writer) error) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := fn(f); err != nil {
		f.Close()
		return fmt.Errorf("report: %s: %w", name, err)
	}
	return f.Close()
}

// f4 spells a number in a CSV cell: four decimals.
func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

// csvTables are the report's CSV files by name, header row first.
func csvTables(rep Report) map[string][][]string {
	out := map[string][][]string{"stages.csv": stageRows(rep), "episodes.csv": episodeRows(rep), "retention.csv": retentionRows(rep),
		"transfer.csv": transferRows(rep), "comparisons.csv": comparisonRows(rep), "encounters.csv": encounterCSV(rep)}
	if rep.Orderings != nil {
		out["orderings.csv"] = orderingRows(rep.Orderings)
	}
	if len(rep.Epochs) > 0 {
		out["epochs.csv"] = reducerRows(rep.Epochs)
	}
	return out
}

// uCSV spells a condition's U: empty where its profile defines no U
// (ConditionReport.DefinesU).
func uCSV(c ConditionReport, x float64) string {
	if !c.DefinesU() {
		return ""
	}
	return f4(x)
}

func stageRows(rep Report) [][]string {
	rows := [][]string{{"condition", "run", "stage", "n", "s", "s_ci_low", "s_ci_high", "strict_accuracy", "u", "turns", "tests", "cost_usd"}}
	for _, c := range rep.Conditions {
		for i, m := range c.Stages {
			rows = append(rows, []string{c.Name, c.Run, strconv.Itoa(m.Stage), strconv.Itoa(m.N), f4(m.S), f4(c.StageCI[i].Low), f4(c.StageCI[i].High),
				f4(m.Strict), uCSV(c, m.U), f4(m.T), f4(m.E), f4(m.Cost)})
		}
	}
	return rows
}

func episodeRows(rep Report) [][]string {
	eps := [][]string{{"condition", "run", "episode_id", "workflow_id", "case_id", "case_condition", "stage", "index", "s", "diagnosis", "strict", "pass", "u", "t", "e", "r", "cost_usd"}}
	for _, c := range rep.Conditions {
		for _, r := range c.Episodes {
			s := r.Scores
			eps = append(eps, []string{c.Name, c.Run, r.EpisodeID, r.WorkflowID, r.CaseID, r.Condition, strconv.Itoa(r.Stage), strconv.Itoa(r.Index),
				f4(s.S), f4(s.Diagnosis), strconv.FormatBool(s.Strict), strconv.FormatBool(s.Pass), uCSV(c, s.U), strconv.Itoa(s.T), strconv.Itoa(s.E), f4(s.R), f4(s.Cost)})
		}
	}
	return eps
}

func retentionRows(rep Report) [][]string {
	ret := [][]string{{"condition", "k", "j", "a_s", "a_u"}}
	for _, r := range rep.Retention {
		for k := range r.S {
			for j := range r.S[k] {
				if r.S[k][j] != nil {
					au := ""
					if r.U != nil {
						au = f4(*r.U[k][j])
					}
					ret = append(ret, []string{r.Name, strconv.Itoa(k + 1), strconv.Itoa(j + 1), f4(*r.S[k][j]), au})
				}
			}
		}
		ret = append(ret, []string{r.Name, "BWT", "", label(r.BWTS), optCSV(r.BWTU)})
	}
	return ret
}

// transferRows: the seen/unseen-condition columns are empty where H3 reads
// no stream, and a side's are empty where it has no case (undefined, not 0).
func transferRows(rep Report) [][]string {
	tr := [][]string{{"condition", "baseline", "n", "et_s", "et_u", "et_strict", "ci_low", "ci_high", "wilcoxon_p", "mcnemar_p",
		"n_seen_condition", "et_s_seen_condition", "ci_low_seen_condition", "ci_high_seen_condition",
		"n_unseen_condition", "et_s_unseen_condition", "ci_low_unseen_condition", "ci_high_unseen_condition"}}
	for _, t := range rep.Transfer {
		row := []string{t.Name, t.Baseline, strconv.Itoa(t.N), f4(t.ETS), optCSV(t.ETU), f4(t.ETStrict), f4(t.CI.Low), f4(t.CI.High), f4(t.Wilcoxon.P), f4(t.McNemar)}
		for _, sd := range etSides(t) {
			if sd == nil || sd.N == 0 {
				n := ""
				if sd != nil {
					n = "0"
				}
				row = append(row, n, "", "", "")
				continue
			}
			row = append(row, strconv.Itoa(sd.N), f4(sd.ETS), f4(sd.CI.Low), f4(sd.CI.High))
		}
		tr = append(tr, row)
	}
	return tr
}

func comparisonRows(rep Report) [][]string {
	cmp := [][]string{{"a", "b", "metric", "n", "mean_b_minus_a", "ci_low", "ci_high", "wilcoxon_p", "mcnemar_b", "mcnemar_c", "mcnemar_p"}}
	for _, c := range rep.Comparisons {
		row := []string{c.A, c.B, c.Metric, strconv.Itoa(c.N), f4(c.MeanDiff), f4(c.CI.Low), f4(c.CI.High), f4(c.Wilcoxon.P), "", "", ""}
		if m := c.McNemar; m != nil {
			row[8], row[9], row[10] = strconv.Itoa(m.B), strconv.Itoa(m.C), f4(m.P)
		}
		cmp = append(cmp, row)
	}
	return cmp
}

func encounterCSV(rep Report) [][]string {
	enc := [][]string{{"condition", "lineage", "split_by", "side", "n", "s", "strict_accuracy", "u", "ci_low_s", "ci_high_s"}}
	for _, r := range encounterRows(rep) {
		for _, side := range []struct {
			name string
			m    StageMean
			ci   Interval
		}{{"seen", r.Seen, r.SeenCI}, {"new", r.New, r.NewCI}} {
			u := f4(side.m.U)
			if r.NoU {
				u = ""
			}
			lo, hi := f4(side.ci.Low), f4(side.ci.High)
			if side.m.N == 0 {
				lo, hi = "", ""
			}
			enc = append(enc, []string{r.Condition, r.Lineage, r.By, side.name, strconv.Itoa(side.m.N), f4(side.m.S), f4(side.m.Strict), u, lo, hi})
		}
	}
	return enc
}

// writeEpisodes writes one JSON per episode, linked from the page, and the
// trajectories and steps JSONL.
func writeEpisodes(dir string, rep Report, traces TraceOf) error {
	var traj, steps strings.Builder
	for _, c := range rep.Conditions {
		for _, r := range c.Episodes {
			t, err := traces(r.EpisodeID)
			if err != nil {
				return err
			}
			b, _ := json.MarshalIndent(map[string]any{"record": r, "trace": t}, "", "  ")
			if err := os.WriteFile(filepath.Join(dir, "episodes", EpisodeFile(r.EpisodeID)), b, 0o644); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			line, _ := json.Marshal(map[string]any{"condition": c.Name, "episode_id": r.EpisodeID, "case_id": r.CaseID, "stage": r.Stage,
				"scores": r.Scores, "events": t.Events, "final": t.Final})
			traj.Write(append(line, '\n'))
			// Steps of the successful episodes, for imitation; of every episode
			// where the profile defines a reward and costs (constrained RL
			// learns from the failures too).
			if r.Scores.Pass || declaresReward(c.Bench) {
				for _, st := range Steps(t, c.Bench) {
					line, _ := json.Marshal(st)
					steps.Write(append(line, '\n'))
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "trajectories.jsonl"), []byte(traj.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "steps.jsonl"), []byte(steps.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// HTML renders the report's body (everything inside the page's <body>) with
// every episode linked where link says: the viewer serves the same report
// live, its episodes linked to its own pages.
func HTML(rep Report, link func(episodeID string) string) (template.HTML, error) {
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "body", view(rep, link)); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	return template.HTML(b.String()), nil
}

// StageCharts are the report's stage curves of S (with bootstrap bands) and U
// and its running means over the stream, for the conditions of rep; each
// chart carries its title.
func StageCharts(rep Report) []template.HTML {
	v := view(rep, nil)
	out := []template.HTML{v.Curves}
	if v.UCurves != "" {
		out = append(out, v.UCurves)
	}
	return append(out, v.Running...)
}

// Scores.Metrics names that the trajectory export reads (Steps): a benchmark
// whose episode reward is not S reports it as MetricReward, and an
// episode-level safety cost as MetricSafetyCost (the reward R and the costs
// C_k of a constrained MDP).
const (
	MetricReward     = "reward"
	MetricSafetyCost = "cost_safety"
)

// Step is one state-action pair of an episode with its reward and costs:
// the transitions of a constrained MDP (a reward R and costs C_k per step),
// for policy-training research.
type Step struct {
	EpisodeID string              `json:"episode_id"`
	Turn      int                 `json:"turn"`
	State     []string            `json:"state"` // what the doctor had seen before acting
	Action    clinic.DoctorOutput `json:"action"`
	Status    clinic.Status       `json:"status"`
	// Reward is 0 before the last step and, on it, the episode's reward: the
	// benchmark's metric "reward" where it defines one, S otherwise.
	Reward float64 `json:"reward"`
	// CostSafety is the step's safety cost: the protocol penalty charged to
	// it (the benchmark's Trajectory) and, on the last step, the episode's
	// safety cost (metric "cost_safety").
	CostSafety float64 `json:"cost_safety"`
	// CostDiagnostic is the step's cost in USD (Event.Cost).
	CostDiagnostic float64 `json:"cost_diagnostic"`
}

// Steps turns a trace of benchmark b into state-action steps with rewards
// and costs (bench.Describe: the action as the doctor gave it and its
// safety cost).
func Steps(t clinic.Trace, b bench.Benchmark) []Step {
	var out []Step
	var seen []string
	for i, ev := range t.Events {
		d := bench.Describe(b, ev)
		st := Step{EpisodeID: t.EpisodeID, Turn: ev.Turn, State: append([]string(nil), seen...), Action: *d.Step, Status: ev.Status,
			CostSafety: d.SafetyCost, CostDiagnostic: ev.Cost}
		if i == len(t.Events)-1 && t.Scores != nil {
			st.Reward = t.Scores.S
			if r, ok := t.Scores.Metrics[MetricReward]; ok {
				st.Reward = r
			}
			st.CostSafety += t.Scores.Metrics[MetricSafetyCost]
		}
		out = append(out, st)
		if ev.Reply != "" {
			seen = append(seen, fmt.Sprintf("%s %s -> %s", ev.Action, stateTarget(d, ev), ev.Reply))
		}
	}
	return out
}

// stateTarget is what an action was about as a step's state names it: the
// benchmark's own reading, else the test, the committed or final diagnosis,
// or the topic or question.
func stateTarget(d bench.Description, ev clinic.Event) string {
	switch {
	case d.Own:
		return d.Target
	case ev.Action == clinic.RequestTest:
		return ev.Test
	case ev.Final != nil && len(ev.Final.Diagnosis) > 0:
		return strings.Join(ev.Final.Diagnosis, "; ")
	case ev.Topic != "":
		return ev.Topic
	}
	return ev.Question
}

// declaresReward reports whether a benchmark's episodes carry a reward and
// safety costs: then every episode's steps are exported, since constrained
// RL learns from the failures too; otherwise those that passed, for
// imitation.
func declaresReward(b bench.Benchmark) bool {
	return b != nil && bench.Declares(b.Metrics(), MetricReward)
}

// EpisodeFile is the file name of an episode's JSON in the report.
func EpisodeFile(id string) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(id) + ".json"
}

// ---- the page ----

type pageView struct {
	Report     Report
	Curves     template.HTML
	UCurves    template.HTML
	Heatmaps   []template.HTML
	Deltas     []template.HTML
	CostBars   template.HTML
	Running    []template.HTML
	Conditions []ConditionReport
	// MetricNames are the profile metrics any condition reports, sorted.
	MetricNames []string
	Sections    []template.HTML // the benchmarks' own sections (Section)
	Frontier    template.HTML   // the accuracy–cost frontiers (frontier.go)
	Encounters  []encounterRow  // the recall/transfer split (encounters.go)
	Orderings   template.HTML   // the orderings' section (orderings.go)
	Epochs      template.HTML   // the epochs' reducers (epochs.go)
	// EpisodeLink is where an episode's link points.
	EpisodeLink func(episodeID string) string
}

func view(rep Report, link func(string) string) pageView {
	v := pageView{Report: rep, Conditions: rep.Conditions, Encounters: encounterRows(rep), EpisodeLink: link}
	v.Curves = Curves(rep, "S", func(m StageMean) float64 { return m.S }, 0, 1, true)
	if withU := uConditions(rep); len(withU.Conditions) > 0 {
		v.UCurves = Curves(withU, "U", func(m StageMean) float64 { return m.U }, -0.5, 0.6, false)
	}
	for _, r := range rep.Retention {
		v.Heatmaps = append(v.Heatmaps, heatmap(r))
	}
	for _, t := range rep.Transfer {
		v.Deltas = append(v.Deltas, deltas(t))
	}
	v.CostBars = costBars(rep)
	v.Orderings = orderingsHTML(rep.Orderings)
	v.Epochs = epochsHTML(rep.Epochs)
	v.Frontier = frontierHTML(rep.Frontiers)
	for _, sec := range rep.sections {
		v.Sections = append(v.Sections, sec.HTML)
	}
	seen := map[string]bool{}
	for _, c := range rep.Conditions {
		for k := range c.Overall.Metrics {
			if !seen[k] {
				seen[k] = true
				v.MetricNames = append(v.MetricNames, k)
			}
		}
	}
	sort.Strings(v.MetricNames)
	for _, m := range []struct {
		name   string
		y      func(RunningPoint) float64
		lo, hi float64
	}{{"S̄₁:t", func(p RunningPoint) float64 { return p.S }, 0, 1}, {"C̄₁:t (cost USD)", func(p RunningPoint) float64 { return p.Cost }, 0, 0}} {
		if c := runningChart(rep, m.name, m.y, m.lo, m.hi); c != "" {
			v.Running = append(v.Running, c)
		}
	}
	return v
}

// runningChart draws the running mean of a metric over each stream's episodes
// (EvoClinician §5, Figure 2) on an axis that spans at least [lo, hi], the
// metric's range (S's 0 to 1, as the learning curves draw it), widened to
// the means where they leave it.
func runningChart(rep Report, name string, y func(RunningPoint) float64, lo, hi float64) template.HTML {
	const W, H, L, B, T, R = 640, 280, 64, 44, 30, 160
	maxT, any := 1, false
	for _, c := range rep.Conditions {
		for _, p := range c.Running {
			maxT, lo, hi, any = max(maxT, p.T), math.Min(lo, y(p)), math.Max(hi, y(p)), true
		}
	}
	if !any {
		return ""
	}
	yt := NiceTicks(lo, hi, 5)
	xt := IntTicks(1, maxT, 8)
	px := func(t float64) float64 { return L + (t-1)*float64(W-L-R)/math.Max(1, xt.Hi-1) }
	py := func(v float64) float64 { return T + (yt.Hi-v)*float64(H-T-B)/(yt.Hi-yt.Lo) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart running" role="img" aria-label="running mean %s" viewBox="0 0 %d %d" width="%d" height="%d">`, template.HTMLEscapeString(name), W, H, W, H)
	ChartTitle(&b, L, "Running mean "+name+" over the stream")
	for _, v := range yt.Values() {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text class="ytick" x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`, L, W-R, py(v), py(v), L-6, py(v)+4, yt.Label(v))
	}
	for _, v := range xt.Values() {
		if v < 1 {
			continue // episodes count from 1
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#999"/><text class="xtick" x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`, px(v), px(v), H-B, H-B+4, px(v), H-B+16, xt.Label(v))
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%d" y="%d" font-size="12" text-anchor="middle">episode t</text>`, (L+W-R)/2, H-8)
	yLabel(&b, 16, (T+H-B)/2, name)
	n := 0
	for _, c := range rep.Conditions {
		if len(c.Running) == 0 {
			continue
		}
		col := Palette[n%len(Palette)]
		pts := make([]string, len(c.Running))
		for i, p := range c.Running {
			pts[i] = fmt.Sprintf("%.1f,%.1f", px(float64(p.T)), py(y(p)))
		}
		fmt.Fprintf(&b, `<polyline class="line" points="%s" fill="none" stroke="%s" stroke-width="1.5"><title>%s</title></polyline>`, strings.Join(pts, " "), col, template.HTMLEscapeString(c.Name))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="12">%s</text>`, W-R+12, T+n*18, col, W-R+30, T+n*18+11, template.HTMLEscapeString(c.Name))
		n++
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// Curves draws the stage means y of rep's conditions (those with stages) as
// learning curves named name on [lo, hi] (widened to round ticks), with the
// bootstrap bands when band is set: a benchmark's section draws its own
// metrics' curves with it.
func Curves(rep Report, name string, y func(StageMean) float64, lo, hi float64, band bool) template.HTML {
	title := name + " by stage"
	if band {
		title += ", with bootstrap 95% bands"
	}
	return curvesTitled(rep, name, title, y, lo, hi, band)
}

// curvesTitled draws learning curves under title.
func curvesTitled(rep Report, name, title string, y func(StageMean) float64, lo, hi float64, band bool) template.HTML {
	f := curveFrame{maxStage: 1, yt: NiceTicks(lo, hi, 6)}
	for _, c := range rep.Conditions {
		for _, m := range c.Stages {
			f.maxStage = max(f.maxStage, m.Stage)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart curve" role="img" aria-label="learning curves of %s" viewBox="0 0 %d %d" width="%d" height="%d">`, template.HTMLEscapeString(name), cW, cH, cW, cH)
	ChartTitle(&b, cL, title)
	for _, v := range f.yt.Values() {
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text class="ytick" x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`, cL, cW-cR, f.py(v), f.py(v), cL-6, f.py(v)+4, f.yt.Label(v))
	}
	for s := 1; s <= f.maxStage; s++ {
		fmt.Fprintf(&b, `<text class="xtick" x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>`, f.px(s), cH-cB+16, s)
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%d" y="%d" font-size="12" text-anchor="middle">stage</text>`, (cL+cW-cR)/2, cH-8)
	yLabel(&b, 16, (cT+cH-cB)/2, "stage mean "+name)
	n := 0
	for _, c := range rep.Conditions {
		if len(c.Stages) > 0 {
			f.curve(&b, c, n, name, y, band)
			n++
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// The learning curves' size and margins (left, bottom, top, right: the
// legend's column).
const cW, cH, cL, cB, cT, cR = 640, 310, 64, 44, 30, 160

// curveFrame places stages and values on the learning curves' chart.
type curveFrame struct {
	maxStage int
	yt       Ticks
}

func (f curveFrame) px(stage int) float64 {
	if f.maxStage == 1 {
		return cL
	}
	return cL + float64(stage-1)*float64(cW-cL-cR)/float64(f.maxStage-1)
}

func (f curveFrame) py(v float64) float64 {
	return cT + (f.yt.Hi-v)*float64(cH-cT-cB)/(f.yt.Hi-f.yt.Lo)
}

// curve draws condition c, the n-th with stages, in its palette colour: its
// bootstrap band when asked and known, its line and points, its legend.
func (f curveFrame) curve(b *strings.Builder, c ConditionReport, n int, name string, y func(StageMean) float64, band bool) {
	col := Palette[n%len(Palette)]
	if band && len(c.StageCI) == len(c.Stages) {
		var pts []string
		for i, m := range c.Stages {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", f.px(m.Stage), f.py(c.StageCI[i].High)))
		}
		for i := len(c.Stages) - 1; i >= 0; i-- {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", f.px(c.Stages[i].Stage), f.py(c.StageCI[i].Low)))
		}
		fmt.Fprintf(b, `<polygon class="band" points="%s" fill="%s" fill-opacity="0.15" stroke="none"/>`, strings.Join(pts, " "), col)
	}
	var pts []string
	for _, m := range c.Stages {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", f.px(m.Stage), f.py(y(m))))
	}
	fmt.Fprintf(b, `<polyline class="line" points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), col)
	for _, m := range c.Stages {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s stage %d: %s=%.3f (n=%d)</title></circle>`, f.px(m.Stage), f.py(y(m)), col, template.HTMLEscapeString(c.Name), m.Stage, template.HTMLEscapeString(name), y(m), m.N)
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" font-size="12">%s</text>`, cW-cR+12, cT+n*18, col, cW-cR+30, cT+n*18+11, template.HTMLEscapeString(c.Name))
}

// heatmap draws a retention matrix on the sequential viridis scale, with its
// legend from 0 to 1.
func heatmap(r Retention) template.HTML {
	const cell, L, T, legend = 56, 70, 64, 90
	W, H := max(L+cell*r.K+legend, 460), T+cell*r.K+40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart heatmap" role="img" aria-label="retention matrix of %s" viewBox="0 0 %d %d" width="%d" height="%d">`, template.HTMLEscapeString(r.Name), W, H, W, H)
	ChartTitle(&b, 6, "Retention of "+r.Name+": S of stage j after stage k")
	fmt.Fprintf(&b, `<text class="axis-label" x="%d" y="%d" font-size="12" text-anchor="middle">stage j re-played</text>`, L+cell*r.K/2, T-28)
	for k := 0; k < r.K; k++ {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="end">after %d</text>`, L-6, T+k*cell+cell/2+4, k+1)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle">stage %d</text>`, L+k*cell+cell/2, T-8, k+1)
		for j := 0; j < r.K; j++ {
			v := r.S[k][j]
			fill, ink, text := "#f4f4f4", "#000", ""
			if v != nil {
				fill, ink, text = sequential(*v), inkOn(*v), fmt.Sprintf("%.2f", *v)
			}
			fmt.Fprintf(&b, `<rect class="cell" x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#fff"><title>A[%d][%d] S=%s</title></rect>`, L+j*cell, T+k*cell, cell, cell, fill, k+1, j+1, text)
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>`, L+j*cell+cell/2, T+k*cell+cell/2+4, ink, text)
		}
	}
	// The legend: ten steps of the scale from S = 0 (bottom) to 1 (top).
	lx, steps := L+cell*r.K+16, 10
	lh := float64(cell*r.K) / float64(steps)
	b.WriteString(`<g class="legend">`)
	for i := 0; i < steps; i++ {
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="14" height="%.1f" fill="%s"/>`, lx, float64(T)+float64(steps-1-i)*lh, lh+0.5, sequential((float64(i)+0.5)/float64(steps)))
	}
	for _, v := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="11">%.1f</text>`, lx+18, float64(T)+(1-v)*float64(cell*r.K)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">S</text></g>`, lx, T-8)
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12">BWT(S) = %s, BWT(U) = %s</text></svg>`, L, H-10, label(r.BWTS), label(r.BWTU))
	return template.HTML(b.String())
}

func deltas(t Transfer) template.HTML {
	const W, H, L, T, B = 640, 240, 64, 30, 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart deltas" role="img" aria-label="paired deltas %s minus %s" viewBox="0 0 %d %d" width="%d" height="%d">`, template.HTMLEscapeString(t.Name), template.HTMLEscapeString(t.Baseline), W, H, W, H)
	ChartTitle(&b, L, fmt.Sprintf("S of %s minus S of %s, case by case (sorted)", t.Name, t.Baseline))
	py := func(v float64) float64 { return T + (1-v)*float64(H-T-B)/2 }
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#999"/>`, L, W-10, py(0), py(0))
	for _, v := range []float64{-1, -0.5, 0, 0.5, 1} {
		fmt.Fprintf(&b, `<text class="ytick" x="%d" y="%.1f" font-size="11" text-anchor="end">%+.1f</text>`, L-6, py(v)+4, v)
	}
	yLabel(&b, 16, (T+H-B)/2, "ΔS")
	sorted := append([]float64(nil), t.Deltas...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	bw := float64(W-L-10) / float64(max(1, len(sorted)))
	for i, d := range sorted {
		y0, y1 := py(0), py(d)
		col := Better
		if d < 0 {
			col = Worse
			y0, y1 = y1, y0
		}
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, float64(L)+float64(i)*bw, y1, max(bw-1, 0.5), max(y0-y1, 0.5), col)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#000" stroke-dasharray="4 3"/><text x="%d" y="%d" font-size="12">ET(S) = %.3f, 95%% CI [%.3f, %.3f], Wilcoxon p %s, n = %d</text></svg>`,
		L, W-10, py(t.ETS), py(t.ETS), L, H-8, t.ETS, t.CI.Low, t.CI.High, PEquals(t.Wilcoxon.P), t.N)
	return template.HTML(b.String())
}

// PEquals is "= 0.012" or "< 0.001", to follow a "p" (PValue).
func PEquals(p float64) string {
	s := PValue(p)
	if strings.HasPrefix(s, "<") {
		return s
	}
	return "= " + s
}

func costBars(rep Report) template.HTML {
	const W, row, L = 640, 26, 170
	H := 50 + row*len(rep.Conditions)
	maxCost := 1.0
	for _, c := range rep.Conditions {
		maxCost = max(maxCost, c.Overall.Cost)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart costs" role="img" aria-label="process cost" viewBox="0 0 %d %d" width="%d" height="%d">`, W, H, W, H)
	ChartTitle(&b, 6, "Mean cost USD per episode, turns and tests")
	for i, c := range rep.Conditions {
		y := 30 + i*row
		w := float64(W-L-240) * c.Overall.Cost / maxCost
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" text-anchor="end">%s</text><rect class="bar" x="%d" y="%d" width="%.1f" height="16" fill="%s"/><text x="%.1f" y="%d" font-size="11">%.0f USD, %.1f turns, %.2f tests</text>`,
			L-8, y+12, template.HTMLEscapeString(c.Name), L, y, w, Palette[i%len(Palette)], float64(L)+w+6, y+12, c.Overall.Cost, c.Overall.T, c.Overall.E)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"f3":       func(x float64) string { return fmt.Sprintf("%.3f", x) },
	"pv":       PValue,
	"glossary": GlossaryHTML,
	"indent": func(b json.RawMessage) string {
		var out bytes.Buffer
		if json.Indent(&out, b, "", "  ") != nil {
			return string(b)
		}
		return out.String()
	},
	// digest is a settings digest's first 12 hex digits: enough to tell runs apart.
	"digest": func(d string) string {
		if h, ok := strings.CutPrefix(d, "sha256:"); ok && len(h) > 12 {
			return h[:12]
		}
		return d
	},
	"served": served,
	"side":   func(m StageMean, ci Interval, noU bool) sideView { return sideView{m, ci, noU} },
	"add":    func(a, b int) int { return a + b },
	"f1":     func(x float64) string { return fmt.Sprintf("%.1f", x) },
	"metric": func(m StageMean, k string) string {
		if v, ok := m.Metrics[k]; ok {
			return fmt.Sprintf("%.3f", v)
		}
		return "–"
	},
	"opt": label,
	"gain": func(g *Gain) string {
		if g == nil {
			return "–"
		}
		return fmt.Sprintf("%+.3f", g.S)
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clinevo report: {{if .Report.Stream}}stream {{.Report.Stream}}{{else}}{{.Report.Experiment}}{{end}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}h2{margin-top:2em;border-bottom:1px solid #eee}
details{margin:.5em 0}code{font-size:12px}td.text{text-align:left;white-space:normal}pre.spec{white-space:pre-wrap;font-size:12px;background:#f6f8fa;padding:.5em}
table.kv th,table.kv td,table.provenance-conditions td{text-align:left}
</style></head><body>
{{template "body" .}}
<p>Numbers: report.json (with the provenance and glossary), stages.csv, episodes.csv, retention.csv, transfer.csv, comparisons.csv, encounters.csv{{if .Report.Orderings}}, orderings.csv{{end}}{{if .Report.Epochs}}, epochs.csv{{end}}. Trajectories: trajectories.jsonl; steps of episodes with S ≥ 0.7: steps.jsonl.</p>
</body></html>
{{define "body"}}<h1>clinevo report: {{if .Report.Stream}}stream {{.Report.Stream}}{{else}}{{.Report.Experiment}}{{end}}</h1>
{{with .Report.Provenance}}<details class="provenance" open><summary>Provenance</summary><table class="kv provenance">
<tr><th>clinevo</th><td>{{.Version}}</td></tr>
<tr><th>started</th><td>{{if .Started}}{{.Started}}{{else}}–{{end}}</td></tr>
<tr><th>finished</th><td>{{if .Finished}}{{.Finished}}{{else}}not yet{{end}}</td></tr>
<tr><th>corpora</th><td>{{range $i, $c := .Corpora}}{{if $i}}, {{end}}<code>{{$c}}</code>{{end}}</td></tr>
<tr><th>bootstrap seed</th><td>{{.BootstrapSeed}}</td></tr>
</table>
<table class="provenance-conditions"><tr><th>condition</th><th>run</th><th>corpus</th><th>profile</th><th>method</th><th>settings digest</th><th>models</th><th>served by</th></tr>
{{range .Conditions}}<tr><td>{{.Name}}</td><td>{{.Run}}</td><td><code>{{.Corpus}}</code></td><td>{{.Benchmark}}</td><td class="text">{{.Method}}{{if .Operators}} ({{.Operators}}){{end}}</td><td><code title="{{.SettingsDigest}}">{{digest .SettingsDigest}}</code></td><td class="text">{{range $i, $m := .Models}}{{if $i}}; {{end}}{{$m}}{{end}}</td><td class="text">{{served .}}</td></tr>
{{end}}</table>
<details><summary>spec</summary><pre class="spec">{{indent .Spec}}</pre></details></details>{{end}}
<h2>Learning curves</h2>
<p>Stage means of the outcome score S with seeded bootstrap 95% bands{{if .UCurves}}, and of the utility U (MedEvoEval's: a condition whose profile defines no U is left out){{end}}.</p>
{{.Curves}}
{{.UCurves}}
{{if .Running}}<h3>Running means over the case stream</h3><p>S̄₁:t and C̄₁:t: the mean score and the mean encounter cost of each stream's first t episodes.</p>
{{range .Running}}{{.}}{{end}}{{end}}
<h2>Conditions</h2>
<table><tr><th>condition</th><th>kind</th><th>episodes</th><th>S</th><th>strict acc</th><th>pass</th><th>non-dangerous</th><th>U</th><th>turns T</th><th>tests E</th><th>invalid R</th><th>cost USD</th><th>learning gain (S)</th></tr>
{{range .Conditions}}<tr><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{.Overall.N}}</td><td>{{f3 .Overall.S}}</td><td>{{f3 .Overall.Strict}}</td><td>{{f3 .Overall.Pass}}</td><td>{{f3 .Overall.NonDangerous}}</td><td>{{if .DefinesU}}{{f3 .Overall.U}}{{else}}–{{end}}</td><td>{{f3 .Overall.T}}</td><td>{{f3 .Overall.E}}</td><td>{{f3 .Overall.R}}</td><td>{{f3 .Overall.Cost}}</td><td>{{gain .LearningGain}}</td></tr>
{{end}}</table>
{{if .MetricNames}}<h3>Benchmark metrics</h3><p>Each metric's mean over the episodes that define it.</p><table><tr><th>condition</th>{{range .MetricNames}}<th>{{.}}</th>{{end}}</tr>
{{range $c := .Conditions}}<tr><td>{{$c.Name}}</td>{{range $.MetricNames}}<td>{{metric $c.Overall .}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{.Frontier}}
{{range .Sections}}{{.}}
{{end}}
<h3>Time per episode</h3><p>Mean activity time in milliseconds: diagnosing (the turn loop and scoring) and updating (grading and evolution), as EvoClinician §5 splits it, and the evolver role's model use per episode (a learning method's update; 0 under the built-in roles). A prompt optimiser's development phase (EvoPrompt, GEPA: playing and breeding its candidates) is update cost too: its time is in the update column and its model use, all roles, in the development columns, spread over the stream's episodes.</p>
<table><tr><th>condition</th><th>diagnose ms</th><th>update ms</th><th>evolver tokens</th><th>evolver model USD</th><th>development tokens</th><th>development model USD</th></tr>
{{range .Conditions}}<tr><td>{{.Name}}</td><td>{{f1 (index .Overall.TimeMS "diagnose")}}</td><td>{{f1 (index .Overall.TimeMS "update")}}</td><td>{{f1 (index .Overall.Tokens "evolver")}}</td><td>{{f3 (index .Overall.ModelUSD "evolver")}}</td><td>{{f1 (index .Overall.Tokens "development")}}</td><td>{{f3 (index .Overall.ModelUSD "development")}}</td></tr>
{{end}}</table>
<h3>Stage series diagnostics (S)</h3><p>Descriptive, as MedEvoEval C.6 and D.5 treat them: Mann–Kendall trend, augmented Dickey–Fuller (constant, no lag on short series; the unit root is rejected when the statistic is below the small-sample 5% critical value), CUSUM and a one-break segmented regression.</p>
<table><tr><th>condition</th><th>stages</th><th>Mann–Kendall S, p</th><th>ADF τ (5% crit.)</th><th>stationary at 5%</th><th>CUSUM change at</th><th>break after stage</th><th>slope before / after</th><th>R² segmented / linear</th></tr>
{{range .Conditions}}{{if .Stages}}<tr><td>{{.Name}}</td><td>{{len .Stages}}</td><td>{{.Trend.S}}, {{pv .Trend.P}}</td><td>{{if eq .ADF.Status "ok"}}{{f3 .ADF.Stat}} ({{f3 .ADF.Crit5}}){{else}}{{.ADF.Status}}{{end}}</td><td>{{if eq .ADF.Status "ok"}}{{.ADF.Reject5}}{{else}}–{{end}}</td><td>after stage {{add .CUSUM.At 1}}</td><td>{{if eq .Segmented.Status "ok"}}{{add .Segmented.Break 1}}{{else}}{{.Segmented.Status}}{{end}}</td><td>{{if eq .Segmented.Status "ok"}}{{f3 .Segmented.SlopeBefore}} / {{f3 .Segmented.SlopeAfter}}{{else}}–{{end}}</td><td>{{if eq .Segmented.Status "ok"}}{{f3 .Segmented.R2}} / {{f3 .Segmented.Linear.R2}}{{else}}–{{end}}</td></tr>{{end}}
{{end}}</table>
{{if .Report.Retention}}<h2 id="retention">Retention</h2><p>A[k][j]: stage j re-played with memory and rules frozen at the end of stage k (diagonal: stage evaluations). BWT = mean over j &lt; K of A[K][j] − A[j][j].</p>
{{range .Heatmaps}}{{.}}{{end}}{{end}}
{{if .Report.Transfer}}<h2 id="transfer">Held-out transfer</h2><p>Per-case differences of S between the condition with mature frozen memory and the one without, sorted.</p>
{{range .Deltas}}{{.}}{{end}}
<table><tr><th>condition</th><th>baseline</th><th>n</th><th>ET(S)</th><th>ET(U)</th><th>ET(strict)</th><th>95% CI (S)</th><th>Wilcoxon p</th><th>McNemar p</th></tr>
{{range .Report.Transfer}}<tr><td>{{.Name}}</td><td>{{.Baseline}}</td><td>{{.N}}</td><td>{{f3 .ETS}}</td><td>{{opt .ETU}}</td><td>{{f3 .ETStrict}}</td><td>[{{f3 .CI.Low}}, {{f3 .CI.High}}]</td><td>{{pv .Wilcoxon.P}}</td><td>{{pv .McNemar}}</td></tr>{{end}}</table>
<h3>Transfer by condition: seen vs unseen</h3><p>ET(S) over the cases whose clinical condition the memory lineage played in its stream (seen) and over those on a condition it never met (unseen), each with a bootstrap 95% interval. Memory can only transfer to an unseen condition; on a seen one it may also recall.</p>
<table><tr><th>condition</th><th>baseline</th><th>seen n</th><th>ET(S) seen</th><th>95% CI</th><th>unseen n</th><th>ET(S) unseen</th><th>95% CI</th></tr>
{{range .Report.Transfer}}{{$t := .}}{{with .ByCondition}}<tr><td>{{$t.Name}}</td><td>{{$t.Baseline}}</td>{{template "etside" .Seen}}{{template "etside" .New}}</tr>{{end}}{{end}}</table>{{end}}
{{if .Encounters}}<h2>Recall and transfer</h2><p>Episodes split by what the memory lineage (the stream runs listed, oldest first) had met before the case. A stream episode is <em>seen</em> when its clinical condition came up earlier in the lineage (seen before) and <em>new</em> at its first encounter. A held-out episode is split by whether its normalised opening complaint, and separately its clinical condition, was among the cases played in the lineage; the held-out condition without memory is split against the lineage of the condition compared with it. A condition that does well only on its seen side recalls rather than transfers; the rows of conditions without memory show what the cases alone are worth.</p>
<table><tr><th>condition</th><th>lineage</th><th>split by</th><th>seen n</th><th>S</th><th>95% CI (S)</th><th>strict acc</th><th>U</th><th>new n</th><th>S</th><th>95% CI (S)</th><th>strict acc</th><th>U</th></tr>
{{range .Encounters}}<tr><td>{{.Condition}}</td><td>{{.Lineage}}</td><td>{{.By}}</td>{{template "side" (side .Seen .SeenCI .NoU)}}{{template "side" (side .New .NewCI .NoU)}}</tr>
{{end}}</table>{{end}}
{{if .Report.Updates}}<h2>Update response</h2><table><tr><th>condition</th><th>pre</th><th>update</th><th>post</th><th>Δupd</th><th>Δpost</th><th>recovery</th></tr>
{{range .Report.Updates}}<tr><td>{{.Name}}</td><td>{{f3 .Pre}}</td><td>{{f3 .Upd}}</td><td>{{f3 .Post}}</td><td>{{f3 .DeltaUpd}}</td><td>{{f3 .DeltaPost}}</td><td>{{opt .Recovery}}</td></tr>{{end}}</table>{{end}}
{{if .Report.Comparisons}}<h2>Paired comparisons</h2><p>Case by case, d = B − A: Wilcoxon signed-rank on S, U, T, E, R and the diagnosis grade; exact McNemar on strict accuracy, pass and non-dangerous diagnosis (MedEvoEval C.6).</p><table><tr><th>A (baseline)</th><th>B</th><th>metric</th><th>n</th><th>mean B − A</th><th>95% CI</th><th>Wilcoxon p</th><th>McNemar b/c</th><th>McNemar p</th></tr>
{{range .Report.Comparisons}}<tr><td>{{.A}}</td><td>{{.B}}</td><td>{{.Metric}}</td><td>{{.N}}</td><td>{{f3 .MeanDiff}}</td><td>[{{f3 .CI.Low}}, {{f3 .CI.High}}]</td><td>{{pv .Wilcoxon.P}}</td><td>{{with .McNemar}}{{.B}}/{{.C}}{{else}}–{{end}}</td><td>{{with .McNemar}}{{pv .P}}{{else}}–{{end}}</td></tr>{{end}}</table>{{end}}
{{.Orderings}}
{{.Epochs}}
<h2>Process cost</h2>
{{.CostBars}}
{{if .Report.Sensitivity}}<h2>Utility-weight sensitivity</h2><table><tr><th>weights (S/T/E/R)</th><th>ranking by mean U</th></tr>
{{range .Report.Sensitivity}}<tr><td>{{.Weights}}</td><td>{{range $i, $n := .Ranking}}{{if $i}} &gt; {{end}}{{$n}}{{end}}</td></tr>{{end}}</table>{{end}}
<h2>Episodes</h2>
{{range .Conditions}}{{$u := .DefinesU}}<details><summary>{{.Name}}: {{len .Episodes}} episodes</summary><table><tr><th>workflow ID</th><th>case</th><th>stage</th><th>S</th><th>U</th></tr>
{{range .Episodes}}<tr><td><a href="{{call $.EpisodeLink .EpisodeID}}"><code>{{.WorkflowID}}</code></a></td><td>{{.CaseID}}</td><td>{{.Stage}}</td><td>{{f3 .Scores.S}}</td><td>{{if $u}}{{f3 .Scores.U}}{{else}}–{{end}}</td></tr>
{{end}}</table></details>{{end}}
{{glossary .Report.Glossary}}{{end}}
{{define "side"}}<td>{{.N}}</td>{{if .N}}<td>{{f3 .S}}</td><td>[{{f3 .CI.Low}}, {{f3 .CI.High}}]</td><td>{{f3 .Strict}}</td><td>{{if .NoU}}–{{else}}{{f3 .U}}{{end}}</td>{{else}}<td>–</td><td>–</td><td>–</td><td>–</td>{{end}}{{end}}
{{define "etside"}}<td>{{.N}}</td>{{if .N}}<td>{{f3 .ETS}}</td><td>[{{f3 .CI.Low}}, {{f3 .CI.High}}]</td>{{else}}<td>–</td><td>–</td>{{end}}{{end}}`))

// sideView is one side of a recall/transfer split as the page shows it.
type sideView struct {
	StageMean
	CI  Interval // of S
	NoU bool     // the condition's profile defines no U
}

// etSides are a Transfer's seen- and unseen-condition sides, nil where it has no split.
func etSides(t Transfer) [2]*ETSide {
	if t.ByCondition == nil {
		return [2]*ETSide{}
	}
	return [2]*ETSide{&t.ByCondition.Seen, &t.ByCondition.New}
}

// uConditions is rep with only the conditions whose profile defines U.
func uConditions(rep Report) Report {
	out := rep
	out.Conditions = nil
	for _, c := range rep.Conditions {
		if c.DefinesU() {
			out.Conditions = append(out.Conditions, c)
		}
	}
	return out
}

// optCSV is a CSV field of an optional number: empty when there is none.
func optCSV(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', 4, 64)
}

// served is a condition's provider provenance on one line, by role: the
// served models and, in brackets, the fingerprints ("doctor: gpt-x-0613
// [fp_a, fp_b]"); a dash when no reply reported either.
func served(c ConditionProvenance) string {
	roles := slices.AppendSeq(slices.Collect(maps.Keys(c.Fingerprints)), maps.Keys(c.ServedModels))
	slices.Sort(roles)
	roles = slices.Compact(roles)
	if len(roles) == 0 {
		return "–"
	}
	parts := make([]string, 0, len(roles))
	for _, role := range roles {
		p := role + ":"
		if ms := c.ServedModels[role]; len(ms) > 0 {
			p += " " + strings.Join(ms, ", ")
		}
		if fps := c.Fingerprints[role]; len(fps) > 0 {
			p += " [" + strings.Join(fps, ", ") + "]"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
