package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"golang.org/x/sync/errgroup"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/benchmarks/gpagent/gptest"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/config"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/engine/enginetest"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// The settings plumbing test (issue 10): one row per configuration key, each
// showing that a changed value changes what the activity that reads it does,
// through `clinevo stream start` with the key in a config file. The experiment
// path (a condition that sets the key under `settings:`) is shown in two
// parts: for every row, `clinevo experiment validate --json` resolves the
// condition's settings to exactly those the stream start's run recorded (the
// experiment workflow hands a condition's resolved settings to its stream as
// they are, so it would play the same episodes); and the first row of each
// section (one per role under roles) also runs through `clinevo experiment run`
// with the same checks as its stream start. Keys that
// cannot be shown this way are listed with the reason and the test that covers
// them instead. A key of settings.Default that has neither a row nor an
// exclusion fails the test, so a new key cannot be added without its row.

// plumbRow is one key, the changed value, and what must differ.
type plumbRow struct {
	key   string
	value any
	// setup holds further keys the scenario needs; the row's baseline has them too.
	setup map[string]any
	limit int // episodes (default 1)
	// roles are put on the fake endpoint with the scripted doctor (always there).
	roles []string
	// orders are the tests the scripted doctor orders (default: CBC, urinalysis).
	orders []string
	// corpus, when set, is the run's corpus (a builtin reference).
	corpus string
	// builtinDoctor leaves the doctor built-in; doctor names a behaviour of
	// the fake doctor other than the scripted plan: "policy" (the server's
	// policies: llmtest's and the GP workflow's, gptest), "gp-masked" (treat
	// before diagnose, then the policies), "gp-stall" (asks and never ends).
	builtinDoctor bool
	doctor        string
	// memory is the run's memory mode (default empty).
	memory string
	// cases, when set, are the run's cases as indices into the test corpus.
	cases []int
	// fails is the error a run with the changed value must stop with.
	fails string
	check func(t *testing.T, base, got plumbRun)
}

// plumbRun is what one run did.
type plumbRun struct {
	run    string
	recs   []results.Record
	events [][]clinic.Event // per record
	cards  []clinic.Card    // evicted ones too
	usage  map[string]results.Usage
	reqs   []llmtest.Request // requests of the run to the fake endpoint, embeddings included
}

func (r plumbRun) role(name string) []llmtest.Request {
	var out []llmtest.Request
	for _, q := range r.reqs {
		if q.Role == name {
			out = append(out, q)
		}
	}
	return out
}

func (r plumbRun) each(f func(results.Record, []clinic.Event)) {
	for i := range r.recs {
		f(r.recs[i], r.events[i])
	}
}

func (r plumbRun) maxTurns() int {
	n := 0
	for _, rec := range r.recs {
		n = max(n, rec.Turns)
	}
	return n
}

func (r plumbRun) statuses(a clinic.ActionKind) map[clinic.Status]int {
	out := map[clinic.Status]int{}
	r.each(func(_ results.Record, evs []clinic.Event) {
		for _, ev := range evs {
			if ev.Action == a {
				out[ev.Status]++
			}
		}
	})
	return out
}

func (r plumbRun) written() int {
	n := 0
	for _, rec := range r.recs {
		n += len(rec.Written)
	}
	return n
}

// scores returns one score per record.
func (r plumbRun) scores(f func(clinic.Scores) float64) []float64 {
	var out []float64
	for _, rec := range r.recs {
		out = append(out, f(rec.Scores))
	}
	return out
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// differ reports whether two runs' per-record scores differ somewhere.
func differ(a, b []float64) bool {
	if len(a) != len(b) {
		return true
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return true
		}
	}
	return false
}

// sameEpisodes requires the two runs to have played the same cases.
func sameEpisodes(t *testing.T, base, got plumbRun) {
	t.Helper()
	require.Equal(t, len(base.recs), len(got.recs))
	for i := range base.recs {
		require.Equal(t, base.recs[i].CaseID, got.recs[i].CaseID)
	}
}

// modelRole is a role on the fake endpoint, under the run's path prefix.
func modelRole(base, run, role string) map[string]any {
	// No cache: the cache is shared by runs, and a row must see its own requests.
	m := map[string]any{"backend": "openai", "base_url": base + "/" + run + "/v1", "model": "fake-" + role, "api_key_env": "", "temperature": 0, "cache": false}
	if role == "embeddings" {
		m["dim"] = 32
	}
	return m
}

// setKey sets a dotted key in a nested map.
func setKey(m map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// overrides are a run's settings: the roles on the endpoint, the setup, and the key.
func (row plumbRow) overrides(endpoint, run string, changed bool) map[string]any {
	m := map[string]any{}
	on := row.roles
	if !row.builtinDoctor {
		on = append([]string{"doctor"}, on...)
	}
	for _, role := range on {
		for k, v := range modelRole(endpoint, run, role) {
			setKey(m, "roles."+role+"."+k, v)
		}
	}
	sub := func(v any) any {
		if s, ok := v.(string); ok {
			return strings.NewReplacer("{run}", run, "{srv}", endpoint).Replace(s)
		}
		return v
	}
	for _, k := range slices.Sorted(maps.Keys(row.setup)) {
		setKey(m, k, sub(row.setup[k]))
	}
	if changed {
		setKey(m, row.key, sub(row.value))
	}
	return m
}

func (row plumbRow) memoryMode() string {
	if row.memory == "" {
		return "empty"
	}
	return row.memory
}

// baselineKey groups rows whose baselines are the same run.
func (row plumbRow) baselineKey() string {
	b, _ := json.Marshal([]any{row.overrides("E", "R", false), row.limit, row.orders, row.cases, row.memory, row.corpus, row.doctor})
	return string(b)
}

// plumbScript is the fake endpoint's behaviour: a doctor that asks, orders
// the run's tests, calls the consultant where it may, asks again and closes
// with one matched and one invented evidence item and one safe and one unsafe
// plan item; a patient that knows nothing beyond the record.
type plumbScript struct {
	mu     sync.Mutex
	orders map[string][]string // by run
	modes  map[string]string   // the fake doctor's behaviour by run (plumbRow.doctor)
	cases  []clinic.Case
}

var turnRE = regexp.MustCompile(`(?i)this is turn (\d+)`)

func runOf(path string) string {
	p := strings.TrimPrefix(path, "/")
	run, _, _ := strings.Cut(p, "/")
	return run
}

func reply(v any) *llmtest.Reply {
	b, _ := json.Marshal(v)
	return &llmtest.Reply{Status: 200, Content: string(b)}
}

func (s *plumbScript) reply(_ int, r llmtest.Request) *llmtest.Reply {
	switch r.Role {
	case "patient":
		return reply(map[string]any{"answer": "I am not sure about that.", "revealed_fact_ids": []string{}, "unanswered_reason": "not_in_patient_view"})
	case "evolver":
		return s.evolver(r)
	case "doctor":
	default:
		return nil
	}
	s.mu.Lock()
	orders, mode := s.orders[runOf(r.Path)], s.modes[runOf(r.Path)]
	s.mu.Unlock()
	switch mode {
	case "policy":
		return nil
	case "gp-stall":
		return reply(map[string]any{"action": "ask", "question": "Is there anything else?"})
	case "gp-masked":
		if strings.Contains(r.System+r.User, "This is round 1 of") {
			return reply(map[string]any{"action": "treat", "diagnosis": []string{"Migraine"}, "plan": []string{"rest"}})
		}
		return nil
	}
	if len(orders) == 0 {
		orders = []string{"full blood count", "urinalysis"}
	}
	turn := 1
	if m := turnRE.FindStringSubmatch(r.System + r.User); m != nil {
		turn, _ = strconv.Atoi(m[1])
	}
	var plan []map[string]any
	plan = append(plan, map[string]any{"action": "ASK", "question": "Can you describe what it feels like?"})
	for _, o := range orders {
		plan = append(plan, map[string]any{"action": "REQUEST_TEST", "test_name": o})
	}
	if strings.Contains(r.System, "CALL_MDT") {
		plan = append(plan, map[string]any{"action": "CALL_MDT", "question": "What would you do next?"})
	}
	plan = append(plan, map[string]any{"action": "ASK", "question": "Have you noticed any other symptoms along with it?"})
	if turn <= len(plan) {
		out := plan[turn-1]
		out["utterance"], out["working_diagnoses"] = "Let me check.", []string{"viral illness"}
		return reply(out)
	}
	var c clinic.Case
	for _, k := range s.cases {
		if strings.Contains(r.User, k.Patient.OpeningComplaint) {
			c = k
		}
	}
	final := map[string]any{"action": "FINALIZE", "utterance": "Here is my view.", "diagnosis": []string{c.Manager.Diagnosis.Name}}
	if strings.Contains(r.System, `"evidence"`) {
		ev := []string{"crushing central chest pain radiating to the jaw"}
		if len(c.Manager.Evidence) > 0 {
			ev = append([]string{c.Manager.Evidence[0]}, ev...)
		}
		plan := []string{"review in clinic"}
		if len(c.Manager.Management) > 0 {
			plan = []string{c.Manager.Management[0]}
		}
		plan = append(plan, c.Manager.UnsafeManagement...)
		final["evidence"], final["plan"], final["followup"] = ev, plan, []string{"review in one week"}
	}
	return reply(final)
}

// evolver is a model evolver that leaks: its card quotes the content words of
// a history fact the episode never revealed, the first two side by side and
// then every other one, so that no other two neighbours of the fact are both
// there. The default leak screen (half of the fact's 2-word n-grams, in any
// order) passes it; 1-word n-grams or a 5% share reject it.
func (s *plumbScript) evolver(r llmtest.Request) *llmtest.Reply {
	var hidden []string
	for _, k := range s.cases {
		if !strings.Contains(r.User, k.Patient.OpeningComplaint) {
			continue
		}
		for _, f := range k.Patient.Facts {
			toks := textmatch.Tokens(f.Text)
			if slices.ContainsFunc(f.Topics, func(t string) bool {
				return t == clinic.TopicFamily || t == clinic.TopicSocial || t == clinic.TopicPastHistory
			}) && !strings.ContainsAny(f.Text, "0123456789") && len(toks) > len(hidden) && len(toks) <= 20 {
				hidden = toks
			}
		}
	}
	quote := slices.Clone(hidden[:min(2, len(hidden))])
	for i := 3; i < len(hidden); i += 2 {
		quote = append(quote, hidden[i])
	}
	return reply(map[string]any{"edits": []any{}, "cards": []any{map[string]any{"kind": "correction", "text": "IF unsure THEN ask about " + strings.Join(quote, " "),
		"avoid": "", "ask": []string{"family"}, "tests": []string{}, "evidence": []string{}, "plan": []string{}}}})
}

// plumbHarness runs the rows through both paths against one embedded Temporal.
type plumbHarness struct {
	t      *testing.T
	env    *enginetest.Env
	srv    *llmtest.Server
	script *plumbScript
	dir    string
	corpus string
	starts []func() error // queued stream starts
}

func (h *plumbHarness) observe(run string) plumbRun {
	t, ctx := h.t, context.Background()
	out := plumbRun{run: run}
	var err error
	out.recs, err = h.env.Engine.Results.Records(ctx, run)
	require.NoError(t, err)
	for _, rec := range out.recs {
		evs, err := h.env.Engine.Results.Events(ctx, rec.EpisodeID, 1000)
		require.NoError(t, err)
		out.events = append(out.events, evs)
	}
	out.cards, err = h.env.Engine.Memory.List(ctx, memory.Filter{Runs: []string{run}, IncludeEvicted: true})
	require.NoError(t, err)
	out.usage, err = h.env.Engine.Results.RunUsage(ctx, run)
	require.NoError(t, err)
	for _, q := range append(h.srv.Requests(), h.srv.EmbeddingRequests()...) {
		if runOf(q.Path) == run {
			out.reqs = append(out.reqs, q)
		}
	}
	return out
}

func writeYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := yaml.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// streamStart starts a run with `clinevo stream start`, its settings in a config file.
func (h *plumbHarness) streamStart(runID, corpusFile, memory string, overrides map[string]any, limit int) {
	h.starts = append(h.starts, func() error {
		file := filepath.Join(h.dir, runID+".yaml")
		m := maps.Clone(overrides)
		m["temporal"] = map[string]any{"address": h.env.Server.Address()}
		b, err := yaml.Marshal(m)
		if err == nil {
			err = os.WriteFile(file, b, 0o644)
		}
		if err != nil {
			return err
		}
		out, err := run(h.t, nil, "--config", file, "stream", "start", "--run", runID, "--corpus", corpusFile, "--memory-mode", memory,
			"--limit", strconv.Itoa(limit), "--stage-size", strconv.Itoa(limit))
		if err != nil {
			return fmt.Errorf("stream start %s: %w: %s", runID, err, out)
		}
		return nil
	})
}

// startStreams runs the queued `stream start` commands, eight at a time.
func (h *plumbHarness) startStreams() {
	var g errgroup.Group
	g.SetLimit(8)
	for _, f := range h.starts {
		g.Go(f)
	}
	h.starts = nil
	require.NoError(h.t, g.Wait())
}

func (h *plumbHarness) wait(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	return h.env.Client.GetWorkflow(ctx, id, "").Get(ctx, nil)
}

func TestSettingsReachTheActivities(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every configuration key through the embedded Temporal server")
	}
	t.Setenv("CLINEVO_PLUMB_KEY", "sk-plumb-env")
	keyFile := filepath.Join(t.TempDir(), "key")
	require.NoError(t, os.WriteFile(keyFile, []byte("sk-plumb-file\n"), 0o600))

	c, err := buildLibrary(t).Load("builtin:stream")
	require.NoError(t, err)
	h := &plumbHarness{t: t, env: enginetest.Start(t), srv: llmtest.New(t), dir: t.TempDir()}
	h.script = &plumbScript{orders: map[string][]string{}, modes: map[string]string{}, cases: c.Cases[:8]}
	h.srv.Script = h.script.reply
	h.srv.Policy = gptest.Policy // the GP doctor's reply formats (mode "policy" of the gpagent rows)
	// The first eight cases of the stream, the first one twice more at the end:
	// a role's identical requests across episodes can hit its cache.
	cases := append(slices.Clone(c.Cases[:8]), c.Cases[0], c.Cases[0])
	for i := 8; i < 10; i++ {
		cases[i].ID = fmt.Sprintf("%s-again-%d", cases[i].ID, i)
	}
	h.corpus = filepath.Join(h.dir, "plumb.jsonl")
	require.NoError(t, buildLibrary(t).WriteJSONL(h.corpus, cases))

	rows, excluded := plumbRows(buildSet(t), keyFile)
	requireEveryKey(t, rows, excluded)

	type runPair struct{ base, got string }
	var exp, equiv []map[string]any
	baselines := map[string]string{} // baseline key -> condition name
	inExp := map[string]bool{}       // baselines the experiment plays
	played := playedByExperiment(rows)
	pairs := make([]runPair, len(rows))
	var failing []int
	for i, row := range rows {
		if row.limit == 0 {
			row.limit = 1
			rows[i] = row
		}
		if row.fails != "" {
			failing = append(failing, i)
			continue
		}
		corpusFile := h.corpus
		if row.corpus != "" {
			corpusFile = row.corpus
		}
		if row.cases != nil {
			var cs []clinic.Case
			for j, k := range row.cases {
				c := cases[k]
				c.ID = fmt.Sprintf("%s-row%d-%d", c.ID, i, j)
				cs = append(cs, c)
			}
			corpusFile = filepath.Join(h.dir, fmt.Sprintf("plumb-%d.jsonl", i))
			require.NoError(t, buildLibrary(t).WriteJSONL(corpusFile, cs))
		}
		// condition is a run of the row as an experiment condition: the
		// overrides of run, with the row's value when changed.
		condition := func(name, run string, changed bool) map[string]any {
			return map[string]any{"name": name, "kind": "stream", "memory": row.memoryMode(), "corpus": corpusFile, "limit": row.limit,
				"settings": row.overrides(h.srv.URL, run, changed)}
		}
		// streamStart queues `stream start` of run s-<name>, and its own
		// overrides as a condition: the experiment path must resolve them to
		// the settings that run recorded.
		streamStart := func(name string, changed bool) {
			h.streamStart("s-"+name, corpusFile, row.memoryMode(), row.overrides(h.srv.URL, "s-"+name, changed), row.limit)
			equiv = append(equiv, condition(name, "s-"+name, changed))
		}
		bk := row.baselineKey()
		bname, ok := baselines[bk]
		if !ok {
			bname = fmt.Sprintf("b%d", len(baselines))
			baselines[bk] = bname
			for _, prefix := range []string{"plumb-", "s-"} {
				h.script.orders[prefix+bname], h.script.modes[prefix+bname] = row.orders, row.doctor
			}
			streamStart(bname, false)
		}
		if played[i] && !inExp[bname] {
			inExp[bname] = true
			exp = append(exp, condition(bname, "plumb-"+bname, false))
		}
		name := fmt.Sprintf("r%d", i)
		for _, prefix := range []string{"plumb-", "s-"} {
			h.script.orders[prefix+name], h.script.modes[prefix+name] = row.orders, row.doctor
		}
		if played[i] {
			exp = append(exp, condition(name, "plumb-"+name, true))
		}
		streamStart(name, true)
		pairs[i] = runPair{bname, name}
	}
	file := filepath.Join(h.dir, "plumb-experiment.yaml")
	writeYAML(t, file, map[string]any{"name": "plumb", "corpus": h.corpus, "stage_size": 10, "conditions": exp})
	cfg := filepath.Join(h.dir, "temporal.yaml")
	writeYAML(t, cfg, map[string]any{"temporal": map[string]any{"address": h.env.Server.Address()}})
	out, err := run(t, nil, "--config", cfg, "experiment", "run", file)
	require.NoError(t, err, out)
	h.startStreams()

	for _, name := range slices.Sorted(maps.Values(baselines)) {
		require.NoError(t, h.wait(contract.StreamWorkflowID("s-"+name)), name)
	}
	for i := range rows {
		if rows[i].fails == "" {
			require.NoError(t, h.wait(contract.StreamWorkflowID("s-"+pairs[i].got)), rows[i].key)
		}
	}
	require.NoError(t, h.wait(contract.ExperimentWorkflowID("plumb")))
	resolved := h.experimentResolves(cfg, equiv)

	for i, row := range rows {
		if row.fails != "" {
			continue
		}
		t.Run(row.key, func(t *testing.T) {
			for _, name := range []string{pairs[i].base, pairs[i].got} {
				resolved(t, name)
			}
			prefixes := []string{"s-"}
			if played[i] {
				prefixes = append(prefixes, "plumb-")
			}
			for _, prefix := range prefixes {
				base, got := h.observe(prefix+pairs[i].base), h.observe(prefix+pairs[i].got)
				require.Len(t, got.recs, row.limit, "%s: every episode recorded", got.run)
				sameEpisodes(t, base, got)
				row.check(t, base, got)
			}
		})
	}
	// A value the worker cannot serve stops the run with an error naming the key.
	for _, i := range failing {
		row := rows[i]
		t.Run(row.key, func(t *testing.T) {
			name := fmt.Sprintf("f%d", i)
			h.streamStart("s-"+name, h.corpus, row.memoryMode(), row.overrides(h.srv.URL, "s-"+name, true), row.limit)
			h.startStreams()
			err := h.wait(contract.StreamWorkflowID("s-" + name))
			require.ErrorContains(t, err, row.fails)
			file := filepath.Join(h.dir, name+".yaml")
			writeYAML(t, file, map[string]any{"name": "plumb-" + name, "corpus": h.corpus, "stage_size": 10,
				"conditions": []any{map[string]any{"name": name, "kind": "stream", "memory": "empty", "limit": row.limit,
					"settings": row.overrides(h.srv.URL, "plumb-"+name+"-"+name, true)}}})
			out, err := run(t, nil, "--config", cfg, "experiment", "run", file)
			require.NoError(t, err, out)
			require.ErrorContains(t, h.wait(contract.ExperimentWorkflowID("plumb-"+name)), row.fails)
		})
	}
}

// playedByExperiment picks the rows that also run through `experiment run`:
// the first of each section of keys (profile, episode, scoring, evolver,
// memory, doctor) and the first of each role under roles. Every row's
// settings are compared with the experiment's resolution of them
// (experimentResolves); these show end to end that the experiment workflow
// plays a condition with the settings it resolved.
func playedByExperiment(rows []plumbRow) map[int]bool {
	seen, out := map[string]bool{}, map[int]bool{}
	for i, r := range rows {
		if r.fails != "" {
			continue
		}
		parts := strings.SplitN(r.key, ".", 3)
		section := parts[0]
		if section == "roles" && len(parts) > 1 {
			section += "." + parts[1]
		}
		if !seen[section] {
			seen[section] = true
			out[i] = true
		}
	}
	return out
}

// resolvedCondition is what `experiment validate --json` prints of a condition.
type resolvedCondition struct {
	Name     string              `json:"name"`
	Memory   contract.MemoryMode `json:"memory"`
	Corpus   string              `json:"corpus"`
	Limit    int                 `json:"limit"`
	Settings settings.Settings   `json:"settings"`
}

// experimentResolves runs `clinevo experiment validate --json` over
// conditions that carry each stream start's own overrides and returns a check
// that a condition resolves to the settings, memory mode, corpus and limit its
// run "s-<name>" recorded. The condition's settings get the stream's defaults
// (contract.StreamSpec.WithDefaults, as ValidateStream gives them before it
// records the run; they include PutExperiment's durability default).
func (h *plumbHarness) experimentResolves(cfg string, conds []map[string]any) func(t *testing.T, name string) {
	file := filepath.Join(h.dir, "plumb-resolves.yaml")
	writeYAML(h.t, file, map[string]any{"name": "plumb-resolves", "corpus": h.corpus, "stage_size": 10, "conditions": conds})
	out, err := run(h.t, nil, "--config", cfg, "experiment", "validate", "--json", file)
	require.NoError(h.t, err, out)
	var v struct {
		Conditions []resolvedCondition `json:"conditions"`
	}
	require.NoError(h.t, json.Unmarshal([]byte(out), &v), out)
	require.Len(h.t, v.Conditions, len(conds))
	byName := map[string]resolvedCondition{}
	for _, c := range v.Conditions {
		byName[c.Name] = c
	}
	runs, _, err := h.env.Engine.Results.Runs(context.Background())
	require.NoError(h.t, err)
	stored := map[string]json.RawMessage{}
	for _, r := range runs {
		stored[r.Run] = r.Spec
	}
	return func(t *testing.T, name string) {
		t.Helper()
		c, ok := byName[name]
		require.True(t, ok, "condition %s", name)
		var rec contract.StreamSpec
		require.NoError(t, json.Unmarshal(stored["s-"+name], &rec), "the recorded spec of s-%s", name)
		want, err := json.Marshal(rec.Settings)
		require.NoError(t, err)
		got, err := json.Marshal(contract.StreamSpec{Settings: c.Settings}.WithDefaults().Settings)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got), "s-%s: the experiment resolves the settings the stream start recorded", name)
		require.Equal(t, []any{rec.Memory, rec.Corpus, rec.Limit}, []any{c.Memory, c.Corpus, c.Limit}, "s-%s: memory mode, corpus and limit", name)
	}
}

// requireEveryKey fails for a key of the defaults with neither a row nor an
// exclusion, and for a row or exclusion of a key that does not exist.
func requireEveryKey(t *testing.T, rows []plumbRow, excluded map[string]string) {
	t.Helper()
	keys := config.Flatten(buildSet(t).DefaultSettings()) // the configuration's keys: the shared ones and the benchmarks'
	covered := map[string]bool{}
	for _, r := range rows {
		_, ok := keys[r.key]
		require.True(t, ok, "row for %s, which is not a configuration key", r.key)
		require.False(t, covered[r.key], "two rows for %s", r.key)
		covered[r.key] = true
	}
	for k, why := range excluded {
		_, ok := keys[k]
		require.True(t, ok, "exclusion of %s, which is not a configuration key", k)
		require.False(t, covered[k], "%s has a row and an exclusion", k)
		require.NotEmpty(t, why)
		covered[k] = true
	}
	var missing []string
	for k := range keys {
		if !covered[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "configuration keys with no plumbing row and no stated exclusion")
}

// firstOfCategory is the first catalog item of a price category.
func firstOfCategory(cat string) string {
	for _, it := range catalog.Default().Items() {
		if string(it.Category) == cat {
			return it.Name
		}
	}
	return ""
}

func costs(r plumbRun) []float64 { return r.scores(func(s clinic.Scores) float64 { return s.Cost }) }

// costDelta requires every episode of got to cost delta more than its baseline episode.
func costDelta(delta func(results.Record) float64) func(*testing.T, plumbRun, plumbRun) {
	return func(t *testing.T, base, got plumbRun) {
		b, g := costs(base), costs(got)
		for i := range g {
			require.InDelta(t, b[i]+delta(got.recs[i]), g[i], 1e-9, "%s episode %d cost", got.run, i+1)
		}
	}
}

func plumbRows(set bench.Set, keyFile string) ([]plumbRow, map[string]string) {
	medinquire := map[string]any{"profile": "medinquire"}
	rows := []plumbRow{
		{key: "profile", value: "medinquire", check: func(t *testing.T, base, got plumbRun) {
			got.each(func(rec results.Record, _ []clinic.Event) {
				require.Nil(t, rec.Scores.Evidence, "Med-Inquire grades the diagnosis alone")
				require.Empty(t, rec.Final.Evidence)
			})
			require.Zero(t, got.statuses(clinic.CallMDT)[clinic.StatusReturned])
			require.NotNil(t, base.recs[0].Scores.Evidence)
		}},
		{key: "episode.max_turns", value: 3, check: func(t *testing.T, base, got plumbRun) {
			require.LessOrEqual(t, got.maxTurns(), 3)
			require.Greater(t, base.maxTurns(), 3)
		}},
		{key: "episode.max_tests", value: 1, check: func(t *testing.T, base, got plumbRun) {
			require.Positive(t, got.statuses(clinic.RequestTest)[clinic.StatusOverBudget], "the second test is refused")
			require.Zero(t, base.statuses(clinic.RequestTest)[clinic.StatusOverBudget])
		}},
		{key: "episode.mdt", value: "off", check: func(t *testing.T, base, got plumbRun) {
			require.Zero(t, got.statuses(clinic.CallMDT)[clinic.StatusReturned])
			require.Positive(t, base.statuses(clinic.CallMDT)[clinic.StatusReturned])
		}},
		{key: "episode.base_turn_cost", value: 20, check: costDelta(func(r results.Record) float64 {
			return (20 - settings.Default().Episode.BaseTurnCost) * float64(r.Turns)
		})},
		{key: "episode.mode", value: "static", check: func(t *testing.T, base, got plumbRun) {
			require.Equal(t, 1, got.maxTurns())
			require.Greater(t, base.maxTurns(), 1)
		}},
		{key: "episode.unknown_test_price", value: 99, setup: medinquire, orders: []string{"serum unobtainium"},
			check: costDelta(func(results.Record) float64 { return 99 - settings.Default().Episode.UnknownTestPrice })},
	}
	for cat, price := range settings.Default().Episode.Prices {
		value := price + 11
		rows = append(rows, plumbRow{key: "episode.prices." + cat, value: value, setup: medinquire, orders: []string{firstOfCategory(cat)},
			check: costDelta(func(results.Record) float64 { return 11 })})
	}
	// Scoring (MedEvoEval §4, appendix C.1–C.2): the scripted doctor's final
	// has a matched and an invented evidence item and a safe and an unsafe plan item.
	sameParts := func(t *testing.T, base, got plumbRun) {
		require.Equal(t, base.scores(func(s clinic.Scores) float64 { return s.Diagnosis }), got.scores(func(s clinic.Scores) float64 { return s.Diagnosis }))
		require.Equal(t, base.scores(func(s clinic.Scores) float64 { return deref(s.Evidence) }), got.scores(func(s clinic.Scores) float64 { return deref(s.Evidence) }))
		require.Equal(t, base.scores(func(s clinic.Scores) float64 { return deref(s.Plan) }), got.scores(func(s clinic.Scores) float64 { return deref(s.Plan) }))
	}
	sChanges := func(t *testing.T, base, got plumbRun) {
		sameParts(t, base, got)
		require.True(t, differ(base.scores(func(s clinic.Scores) float64 { return s.S }), got.scores(func(s clinic.Scores) float64 { return s.S })), "S")
	}
	uChanges := func(t *testing.T, base, got plumbRun) {
		for _, f := range []func(clinic.Scores) float64{
			func(s clinic.Scores) float64 { return s.S }, func(s clinic.Scores) float64 { return float64(s.T) },
			func(s clinic.Scores) float64 { return float64(s.E) }, func(s clinic.Scores) float64 { return s.R },
		} {
			require.Equal(t, base.scores(f), got.scores(f))
		}
		require.True(t, differ(base.scores(func(s clinic.Scores) float64 { return s.U }), got.scores(func(s clinic.Scores) float64 { return s.U })), "U")
	}
	part := func(f func(clinic.Scores) *float64) func(*testing.T, plumbRun, plumbRun) {
		return func(t *testing.T, base, got plumbRun) {
			require.True(t, differ(base.scores(func(s clinic.Scores) float64 { return deref(f(s)) }), got.scores(func(s clinic.Scores) float64 { return deref(f(s)) })))
		}
	}
	evidence := part(func(s clinic.Scores) *float64 { return s.Evidence })
	rows = append(rows,
		plumbRow{key: "scoring.w_diagnosis", value: 0.9, check: sChanges},
		plumbRow{key: "scoring.w_evidence", value: 0.6, check: sChanges},
		plumbRow{key: "scoring.w_plan", value: 0.5, check: sChanges},
		plumbRow{key: "scoring.lambda", value: 2.0, limit: 2, check: evidence},
		plumbRow{key: "scoring.mu", value: 0.1, check: part(func(s clinic.Scores) *float64 { return s.Plan })},
		plumbRow{key: "scoring.match_at", value: 0.99, limit: 2, check: evidence},
		plumbRow{key: "scoring.support_at", value: 0.01, check: evidence},
		plumbRow{key: "scoring.pass_at", value: 0.3, check: func(t *testing.T, base, got plumbRun) {
			got.each(func(r results.Record, _ []clinic.Event) { require.True(t, r.Scores.Pass) })
			base.each(func(r results.Record, _ []clinic.Event) { require.False(t, r.Scores.Pass) })
		}},
		plumbRow{key: "scoring.u_s", value: 0.9, check: uChanges},
		plumbRow{key: "scoring.u_t", value: 0.5, check: uChanges},
		plumbRow{key: "scoring.u_e", value: 0.5, check: uChanges},
		plumbRow{key: "scoring.u_r", value: 0.5, orders: []string{"full blood count", "serum unobtainium"}, check: uChanges},
	)

	// The evolver and memory.
	scoreOnly := map[string]any{"evolver.mode": "score_only"}
	entries := map[string]any{"evolver.mode": "score_only", "evolver.card_kinds": []string{"advice", "summary"}}
	rows = append(rows,
		plumbRow{key: "evolver.mode", value: "score_only", check: func(t *testing.T, base, got plumbRun) {
			require.True(t, anyCard(base, func(c clinic.Card) bool { return c.Diagnosis != "" }), "write-back cards name the reference diagnosis")
			require.False(t, anyCard(got, func(c clinic.Card) bool { return c.Diagnosis != "" }), "score-only cards hold no reference diagnosis")
		}},
		plumbRow{key: "evolver.rule_budget", value: 0, check: func(t *testing.T, base, got plumbRun) {
			got.each(func(r results.Record, _ []clinic.Event) { require.Empty(t, r.RuleEdits) })
			require.NotEmpty(t, base.recs[0].RuleEdits)
		}},
		plumbRow{key: "evolver.memory_budget", value: 1, limit: 3, check: func(t *testing.T, base, got plumbRun) {
			require.Equal(t, 1, live(got))
			require.Greater(t, live(base), 1)
		}},
		plumbRow{key: "evolver.keep_reuse", value: 0.0, setup: map[string]any{"evolver.memory_budget": 2}, limit: 6, check: evictionsDiffer},
		plumbRow{key: "evolver.keep_age", value: 5.0, setup: map[string]any{"evolver.memory_budget": 2}, limit: 6, check: evictionsDiffer},
		plumbRow{key: "evolver.card_kinds", value: []string{"summary"}, check: func(t *testing.T, base, got plumbRun) {
			require.False(t, anyCard(base, func(c clinic.Card) bool { return c.Kind == "summary" }))
			require.NotEmpty(t, got.cards)
			require.False(t, anyCard(got, func(c clinic.Card) bool { return c.Kind != "summary" }))
		}},
		plumbRow{key: "evolver.memory_labels", value: []string{"LOW_YIELD"}, limit: 2, setup: entries, check: func(t *testing.T, base, got plumbRun) {
			low := func(c clinic.Card) bool { return c.Kind == "advice" && c.Grade == "LOW_YIELD" }
			other := func(c clinic.Card) bool { return c.Kind == "advice" && c.Grade != "LOW_YIELD" }
			require.True(t, anyCard(base, other))
			require.False(t, anyCard(base, low))
			require.True(t, anyCard(got, low))
			require.False(t, anyCard(got, other))
		}},
		// An MRI whose result the assessment does not use: INEFFICIENT by cost, LOW_YIELD by yield alone.
		plumbRow{key: "evolver.yield_only", value: true, orders: []string{firstOfCategory("mri")}, check: func(t *testing.T, base, got plumbRun) {
			require.Equal(t, "INEFFICIENT", testLabel(base))
			require.Equal(t, "LOW_YIELD", testLabel(got))
		}},
		plumbRow{key: "evolver.transcript_only", value: true, limit: 2, setup: entries, check: func(t *testing.T, base, got plumbRun) {
			advice := func(c clinic.Card) bool { return c.Kind == "advice" }
			require.True(t, anyCard(base, advice))
			require.False(t, anyCard(got, advice), "no memory entry from a graded action")
		}},
		plumbRow{key: "evolver.update_interval", value: 2, limit: 3, check: func(t *testing.T, base, got plumbRun) {
			require.NotEmpty(t, base.recs[1].Retrieved, "episode 2 reads episode 1's card")
			require.Empty(t, got.recs[1].Retrieved, "episode 1 is evolved with episode 2")
			require.NotEmpty(t, got.recs[2].Retrieved)
		}},
		// Cases A, A, B, C under B_P 2: A's rule has two citations, both older
		// than the last episode, B's one. Counting the last 50 episodes retires
		// B's rule at C; counting the last one, neither is cited and the older goes.
		plumbRow{key: "evolver.cite_window", value: 1, setup: map[string]any{"evolver.rule_budget": 2}, cases: []int{0, 0, 1, 2}, limit: 4,
			check: func(t *testing.T, base, got plumbRun) {
				require.NotEqual(t, retirements(base), retirements(got), "a different rule retires")
			}},
		plumbRow{key: "evolver.leak_ngram", value: 1, limit: 2, setup: scoreOnly, roles: []string{"evolver"}, check: fewerCards},
		plumbRow{key: "evolver.leak_overlap", value: 0.05, setup: scoreOnly, roles: []string{"evolver"}, check: fewerCards},
		plumbRow{key: "memory.k", value: 1, limit: 4, check: func(t *testing.T, base, got plumbRun) {
			require.Equal(t, 1, maxRetrieved(got))
			require.Greater(t, maxRetrieved(base), 1)
		}},
		plumbRow{key: "memory.retrieval", value: "recent", setup: map[string]any{"memory.k": 1}, limit: 4, check: func(t *testing.T, base, got plumbRun) {
			require.NotEqual(t, retrieved(base), retrieved(got))
		}},
		plumbRow{key: "memory.backend", value: "qdrant", fails: "memory.backend is qdrant"},
	)
	// GPAgentBench (profile gpagent) and KlinikeBench (profile klinike).
	gp := map[string]any{"profile": "gpagent"}
	penalties := func(r plumbRun, status clinic.Status) []float64 {
		var out []float64
		r.each(func(_ results.Record, evs []clinic.Event) {
			for i, ev := range evs {
				if ev.Status == status || (status == "" && i == len(evs)-1) {
					out = append(out, gpagent.StepOfEvent(ev).Penalty)
				}
			}
		})
		return out
	}
	klinike := map[string]any{"profile": "klinike"}
	asked := func(r plumbRun) int {
		n := 0
		r.each(func(_ results.Record, evs []clinic.Event) {
			m := 0
			for _, ev := range evs {
				if ev.Action == clinic.Ask && ev.Status == clinic.StatusReturned {
					m++
				}
			}
			n = max(n, m)
		})
		return n
	}
	rows = append(rows,
		plumbRow{key: "episode.actions", value: []string{"diagnose", "treat"}, setup: gp, corpus: "builtin:gp@7", builtinDoctor: true,
			check: func(t *testing.T, base, got plumbRun) {
				require.Positive(t, base.statuses(clinic.Ask)[clinic.StatusReturned])
				got.each(func(_ results.Record, evs []clinic.Event) {
					for _, ev := range evs {
						require.Contains(t, []clinic.ActionKind{gpagent.Diagnose, gpagent.Treat}, ev.Action)
					}
				})
			}},
		plumbRow{key: "episode.workflow_penalty", value: 17, setup: gp, corpus: "builtin:gp@7", doctor: "gp-masked",
			check: func(t *testing.T, base, got plumbRun) {
				require.NotEmpty(t, penalties(got, clinic.StatusMasked))
				for _, p := range penalties(got, clinic.StatusMasked) {
					require.Equal(t, 17.0, p, "c_workflow of a masked action")
				}
				for _, p := range penalties(base, clinic.StatusMasked) {
					require.Equal(t, buildSet(t).DefaultSettings().Episode.Ext["workflow_penalty"], p)
				}
			}},
		plumbRow{key: "episode.timeout_penalty", value: 13, limit: 2, setup: map[string]any{"profile": "gpagent", "episode.max_turns": 3}, corpus: "builtin:gp@7",
			doctor: "gp-stall", check: func(t *testing.T, base, got plumbRun) {
				require.Equal(t, []float64{13, 13}, penalties(got, ""), "c_timeout on the last step")
				d := buildSet(t).DefaultSettings().Episode.Ext["timeout_penalty"].(float64)
				require.Equal(t, []float64{d, d}, penalties(base, ""))
			}},
		plumbRow{key: "roles.doctor.format", value: "tags", setup: gp, corpus: "builtin:gp@7", doctor: "policy",
			check: func(t *testing.T, base, got plumbRun) {
				for _, q := range got.role("doctor") {
					require.NotContains(t, q.Body, "response_format", "no JSON mode with tags")
					require.Contains(t, q.System, "<action")
				}
				for _, q := range base.role("doctor") {
					require.NotContains(t, q.System, "<think>")
				}
				require.Positive(t, got.statuses(gpagent.Treat)[clinic.StatusFinalized]+got.statuses(gpagent.Refer)[clinic.StatusFinalized],
					"the tagged replies were read")
			}},
		plumbRow{key: "episode.max_steps", value: 3, setup: klinike, corpus: "builtin:klinike@7", builtinDoctor: true,
			check: func(t *testing.T, base, got plumbRun) {
				require.LessOrEqual(t, got.maxTurns(), 4, "three steps, then record_diagnosis only")
				require.Greater(t, base.maxTurns(), 4)
			}},
		plumbRow{key: "episode.max_patient_turns", value: 1, setup: klinike, corpus: "builtin:klinike@7", builtinDoctor: true,
			check: func(t *testing.T, base, got plumbRun) {
				require.Equal(t, 1, asked(got))
				require.Greater(t, asked(base), 1)
			}},
	)
	// SDBench (profile sdbench): the scripted doctor asks, orders a blood
	// count and a urinalysis (which ends the visit), asks again and
	// finalizes: two $300 visits and the two tests' prices.
	sd := map[string]any{"profile": "sdbench"}
	sdCosts := func(r plumbRun, a clinic.ActionKind, st clinic.Status) []float64 {
		var out []float64
		r.each(func(_ results.Record, evs []clinic.Event) {
			for _, ev := range evs {
				if ev.Action == a && ev.Status == st {
					out = append(out, ev.Cost)
				}
			}
		})
		return out
	}
	rows = append(rows,
		plumbRow{key: "episode.visit_cost", value: 120, setup: sd, corpus: "builtin:sdbench@7", check: func(t *testing.T, base, got plumbRun) {
			require.NotEmpty(t, sdCosts(got, clinic.Ask, clinic.StatusReturned))
			for _, c := range sdCosts(got, clinic.Ask, clinic.StatusReturned) {
				require.Equal(t, 120.0, c)
			}
			for _, c := range sdCosts(base, clinic.Ask, clinic.StatusReturned) {
				require.Equal(t, 300.0, c)
			}
		}},
		plumbRow{key: "episode.variant", value: "question_only", setup: sd, corpus: "builtin:sdbench@7", check: func(t *testing.T, base, got plumbRun) {
			require.Zero(t, got.statuses(clinic.RequestTest)[clinic.StatusReturned], "question only: no test is performed")
			require.Positive(t, base.statuses(clinic.RequestTest)[clinic.StatusReturned])
			for _, v := range got.scores(func(s clinic.Scores) float64 { return s.Metrics["visits"] }) {
				require.Equal(t, 1.0, v, "questions without a test between them are one visit")
			}
		}},
		plumbRow{key: "episode.cost_cap", value: 250, setup: map[string]any{"profile": "sdbench", "episode.variant": "budgeted"}, corpus: "builtin:sdbench@7",
			check: func(t *testing.T, base, got plumbRun) {
				require.Positive(t, got.statuses(clinic.Ask)[clinic.StatusOverBudget], "a $300 visit would pass $250")
				require.Zero(t, base.statuses(clinic.Ask)[clinic.StatusOverBudget], "no maximum: the tracker quotes, refuses nothing")
				require.Positive(t, base.statuses(clinic.RequestTest)["quoted"], "the budget tracker quotes orders first")
				for _, c := range got.scores(func(s clinic.Scores) float64 { return s.Cost }) {
					require.LessOrEqual(t, c, 250.0)
				}
			}},
		plumbRow{key: "episode.panels", value: 2, setup: map[string]any{"profile": "sdbench", "episode.variant": "ensemble"}, corpus: "builtin:sdbench@7",
			check: func(t *testing.T, base, got plumbRun) {
				require.NotEmpty(t, got.role("doctor"))
				require.Equal(t, 3*len(got.role("doctor")), 2*len(base.role("doctor")), "two panels ask the doctor twice a turn, three thrice")
			}},
		plumbRow{key: "doctor.mode", value: "panel", setup: sd, corpus: "builtin:sdbench@7", builtinDoctor: true, check: func(t *testing.T, base, got plumbRun) {
			noted := func(r plumbRun) int {
				n := 0
				r.each(func(_ results.Record, evs []clinic.Event) {
					for _, ev := range evs {
						for _, line := range ev.Rationale {
							if strings.HasPrefix(line, "test_chooser: ") {
								n++
							}
						}
					}
				})
				return n
			}
			require.Positive(t, noted(got), "the panel's roles speak in the rationale")
			require.Zero(t, noted(base))
		}},
	)
	excluded := map[string]string{
		"evolver.method": "chooses the learning method: each method's mechanism is tested in evolver TestMem0UpdatesAContradictedMemory and its siblings; " +
			"every method reaches the activities through an experiment condition's settings in engine TestMethodsExperimentRunsOffline",
		"evolver.same_at": "read by the mem0, remem and ace methods and the rule book's duplicate check: evolver TestACECountsAndMergesBullets, " +
			"TestMem0ModelDecidesTheOperation, TestDistinctMergesCopies, runner TestRuleBookHoldsARuleOnce",
		"evolver.icl.episodes": "read by the icl method only: evolver TestICLKeepsTheExamplesItsVariantKeeps; icl reaches the activities in engine TestMethodsExperimentRunsOffline",
		"evolver.icl.trace":    "read by the icl method only: evolver TestICLKeepsTheExamplesItsVariantKeeps; icl reaches the activities in engine TestMethodsExperimentRunsOffline",
		"evolver.dev.algorithm": "read by EvoPrompt's development phase only: evolver TestEvoPromptDifferentialEvolution, workflows TestOptimizeEvoPromptDifferentialEvolution, " +
			"and a DE phase played by a worker on the embedded server, replayed in workflows TestReplayCommittedHistories (optimize_evoprompt_de.json)",
		"memory.context_tokens": "changes nothing until the shown cards' texts pass it (runner.Retrieve): runner TestContextTokensBoundTheShownCards; " +
			"it reaches the activities in the icl conditions of engine TestMethodsExperimentRunsOffline",
		"memory.utility.alpha": "read by the memrl and memento methods only (the step size of Q ← Q + α(r − Q)): runner TestMemRLStreamLearnsUtilities " +
			"checks every update against it; memrl reaches the activities in engine TestMemRLStreamEndToEnd and TestMethodsExperimentRunsOffline",
		"memory.utility.lambda": "read by MemRL's ranking only: memory TestRankMemRL (λ 0, 0.5 and 1 give three orders); " +
			"memrl reaches the activities in engine TestMemRLStreamEndToEnd",
		"memory.utility.initial": "the utility of a card never credited, read by the memrl and memento rankings: memory TestRankMemRL, TestKernelQ",
		"memory.utility.recall": "k1, the cards recalled by similarity before utility ranks them (runner.Retrieve under memrl and memento): " +
			"runner TestRetrieveRanksByUtilityAsOf; memrl reaches the activities in engine TestMemRLStreamEndToEnd",
		"memory.utility.tau": "read by Memento's kernel estimate of Q only: memory TestKernelQ (τ 0.1 and 1); memento reaches the activities " +
			"in engine TestMethodsExperimentRunsOffline",
		"episode.ddxplus_mode":    "DDXPlus's own key, read by its environment only: ddxplus TestStreamMode, TestInteractiveMode, and ddxplus/e2e TestTwoHundredPatientsInEachMode",
		"evolver.dev.overlap":     "read where a spec or a stream start is resolved, before any workflow (experiments.Development): experiments TestDevelopmentIsHeldOut, TestSpecDevelopmentFilledIn",
		"evolver.dev.corpus":      "read by the development phase of evoprompt and gepa only: engine TestMethodsExperimentRunsOffline (dev records from it)",
		"evolver.dev.cases":       "read by the development phase of evoprompt and gepa only: engine TestMethodsExperimentRunsOffline",
		"evolver.dev.generations": "read by the development phase of evoprompt and gepa only: engine TestMethodsExperimentRunsOffline",
		"evolver.dev.population":  "read by the development phase of evoprompt and gepa only: engine TestMethodsExperimentRunsOffline",
		"evolver.dev.merges":      "read by the development phase of gepa only: workflows TestOptimizeGEPAMergesTwoParetoCandidates, engine TestMethodsExperimentRunsOffline",
		"budget.usd": "changes nothing until a run's spend reaches it; then the stream pauses (workflows checkBudget, RunSpend): " +
			"engine TestBudgetPausesAndResumes (budget.tokens; the USD cap is the same check on the cost column), settings TestBudget",
		"budget.tokens": "changes nothing until a run's spend reaches it; then the stream pauses: engine TestBudgetPausesAndResumes",
		"model_prices": "prices a role whose own prices are zero (settings.Priced, read by the engine's roles as price_prompt and price_completion are, " +
			"which have rows): settings TestModelPrices",
		"durability.max_outage": "changes nothing while every dependency answers; read by the waiter from the spec ValidateStream resolved: " +
			"workflows TestOutageLongerThanMaxOutage, and the outages of engine/durability TestOutagesAreWaitedOut under a config's settings",
		"durability.max_backoff": "changes nothing while every dependency answers; read by the waiter like max_outage: workflows TestOutagesAreWaitedOut " +
			"(backoffs doubling up to it), engine/durability TestOutagesAreWaitedOut (2 s)",
	}
	for k := range config.Flatten(set.DefaultSettings()) {
		if strings.HasPrefix(k, "roles.gatekeeper.") {
			excluded[k] = "SDBench's own role (bench.Roles), built by llm.NewClient from the same Role value as the shared roles' rows; " +
				"on a model in a worker: engine TestGatekeeperResultSurvivesSIGKILL"
		}
	}
	roleRows(&rows, excluded, keyFile)
	return rows, excluded
}

// roleRows are the rows of every role's keys: each role is put on the fake
// endpoint under the run's own path, and its requests there show the change.
func roleRows(rows *[]plumbRow, excluded map[string]string, keyFile string) {
	for _, role := range settings.RoleNames {
		k := func(field string) string { return "roles." + role + "." + field }
		on := []string{role}
		if role == "doctor" {
			on = nil // the doctor is always there
		}
		reqs := func(t *testing.T, r plumbRun) []llmtest.Request {
			t.Helper()
			q := r.role(role)
			require.NotEmpty(t, q, "%s: %s requests", r.run, role)
			return q
		}
		body := func(field string, want any) func(*testing.T, plumbRun, plumbRun) {
			same := func(v any) bool {
				if w, ok := want.(float64); ok {
					f, ok := v.(float64)
					return ok && math.Abs(f-w) < 1e-6
				}
				return v == want
			}
			return func(t *testing.T, base, got plumbRun) {
				for _, q := range reqs(t, got) {
					require.True(t, same(q.Body[field]), "%s of a %s request: %v, want %v", field, role, q.Body[field], want)
				}
				for _, q := range reqs(t, base) {
					require.False(t, same(q.Body[field]), "%s of a baseline %s request: %v", field, role, q.Body[field])
				}
			}
		}
		auth := func(want string) func(*testing.T, plumbRun, plumbRun) {
			return func(t *testing.T, base, got plumbRun) {
				for _, q := range reqs(t, got) {
					require.Equal(t, "Bearer "+want, q.Auth)
				}
				for _, q := range reqs(t, base) {
					require.NotEqual(t, "Bearer "+want, q.Auth)
				}
			}
		}
		cost := func(t *testing.T, base, got plumbRun) {
			require.Zero(t, base.usage[role].CostUSD)
			require.Positive(t, got.usage[role].CostUSD)
		}
		if role == "embeddings" {
			// The embedder is fixed with the worker's bank: a run may only name it.
			*rows = append(*rows, plumbRow{key: k("backend"), value: "openai", setup: map[string]any{k("model"): "fake-embeddings", k("dim"): 32, k("base_url"): "{srv}/{run}/v1"},
				fails: "settings roles.embeddings is model \"fake-embeddings\" with dim 32 but this worker's memory bank embeds with the built-in hashing embedder"})
			for _, f := range []string{"model", "dim"} {
				excluded[k(f)] = "compared, like backend, with the embedder of the worker's bank; a run that names another is refused: activities TestRunEmbedderMustMatchWorker"
			}
			for _, f := range []string{"base_url", "api_key_env", "api_key_file", "timeout", "concurrency", "price_prompt"} {
				excluded[k(f)] = "the worker's own: read from its configuration when it opens its bank (engine.Options.Embeddings), not from a run"
			}
			for _, f := range []string{"temperature", "top_p", "max_tokens", "json_mode", "format", "cache", "price_completion", "seed"} {
				excluded[k(f)] = "not used by an embeddings request"
			}
			for _, f := range []string{"provider", "rpm", "tpm"} {
				excluded[k(f)] = "the worker's own, like base_url: read from its configuration when it opens its bank (engine.Options.Embeddings), not from a run"
			}
			continue
		}
		*rows = append(*rows,
			plumbRow{key: k("backend"), value: "openai", roles: on, setup: map[string]any{k("backend"): "builtin"},
				check: func(t *testing.T, base, got plumbRun) {
					require.Empty(t, base.role(role), "a built-in %s calls no endpoint", role)
					reqs(t, got)
				}},
			plumbRow{key: k("base_url"), value: "{srv}/{run}/alt/v1", roles: on, check: func(t *testing.T, base, got plumbRun) {
				for _, q := range reqs(t, got) {
					require.Contains(t, q.Path, "/alt/v1/")
				}
				for _, q := range reqs(t, base) {
					require.NotContains(t, q.Path, "/alt/")
				}
			}},
			plumbRow{key: k("model"), value: "plumb-model", roles: on, check: body("model", "plumb-model")},
			plumbRow{key: k("api_key_env"), value: "CLINEVO_PLUMB_KEY", roles: on, check: auth("sk-plumb-env")},
			plumbRow{key: k("api_key_file"), value: keyFile, roles: on, check: auth("sk-plumb-file")},
			plumbRow{key: k("price_prompt"), value: 2.0, roles: on, check: cost},
		)
		excluded[k("timeout")] = "read by llm.NewClient from the same Role value as the keys with rows (an HTTP client deadline); a slower reply is a transient error: llm TestErrorClassification"
		excluded[k("concurrency")] = "read by llm.NewClient from the same Role value as the keys with rows (calls in flight per worker); llm TestConcurrencyLimit"
		excluded[k("dim")] = "embeddings only"
		for _, f := range []string{"rpm", "tpm"} {
			excluded[k(f)] = "read by llm.NewClient from the same Role value as the keys with rows (the endpoint's rate windows); a run under its limit sees no change: llm TestLimiterHoldsCalls, TestRateLimitedStream"
		}
		if role != "doctor" { // roles.doctor.format has its row with the gpagent profile (tags)
			excluded[k("format")] = "only the doctor's replies have a format (json, tags or tools)"
		}
		*rows = append(*rows,
			plumbRow{key: k("temperature"), value: 0.33, roles: on, check: body("temperature", 0.33)},
			plumbRow{key: k("top_p"), value: 0.5, roles: on, check: body("top_p", 0.5)},
			plumbRow{key: k("max_tokens"), value: 77, roles: on, check: body("max_tokens", 77.0)},
			plumbRow{key: k("seed"), value: 7, roles: on, check: body("seed", 7.0)},
			// The openai preset names the token limit max_completion_tokens.
			plumbRow{key: k("provider"), value: "openai", roles: on, setup: map[string]any{k("max_tokens"): 77}, check: func(t *testing.T, base, got plumbRun) {
				for _, q := range reqs(t, got) {
					require.EqualValues(t, 77, q.Body["max_completion_tokens"])
					require.NotContains(t, q.Body, "max_tokens")
				}
				for _, q := range reqs(t, base) {
					require.NotContains(t, q.Body, "max_completion_tokens")
				}
			}},
			plumbRow{key: k("json_mode"), value: false, roles: on, check: func(t *testing.T, base, got plumbRun) {
				for _, q := range reqs(t, got) {
					require.NotContains(t, q.Body, "response_format")
				}
				for _, q := range reqs(t, base) {
					require.Contains(t, q.Body, "response_format")
				}
			}},
			plumbRow{key: k("price_completion"), value: 3.0, roles: on, check: cost},
			// Case 1 twice, memory disabled and no rule book: the second episode
			// repeats the first one's requests. (The rows' roles run without the
			// cache, which runs share.)
			plumbRow{key: k("cache"), value: true, roles: on, cases: []int{0, 8}, limit: 2, memory: "disabled",
				setup: map[string]any{"evolver.rule_budget": 0}, check: func(t *testing.T, base, got plumbRun) {
					hits := func(r plumbRun) int { return r.usage[role].CacheHits }
					reqs(t, base)
					require.Zero(t, hits(base))
					require.Positive(t, hits(got))
				}},
		)
		if role == "evolver" {
			// Its prompt holds the rule book and the cards, which change every episode.
			*rows = slices.DeleteFunc(*rows, func(r plumbRow) bool { return r.key == k("cache") })
			excluded[k("cache")] = "no two evolver requests of a run repeat (each holds the rule book and cards so far); the cache is the client code of the other roles' cache rows"
		}
	}
	for i := range *rows {
		r := &(*rows)[i]
		if !strings.HasPrefix(r.key, "roles.") {
			continue
		}
		if r.cases == nil {
			r.limit = 1 // one episode calls every role
		}
		if strings.HasPrefix(r.key, "roles.exam.") {
			// A name the catalog's aliases miss goes to the model exam.
			r.orders = []string{"full blood count", "sugar level in the blood"}
		}
	}
}

func anyCard(r plumbRun, f func(clinic.Card) bool) bool {
	return slices.ContainsFunc(r.cards, f)
}

func live(r plumbRun) int {
	n := 0
	for _, c := range r.cards {
		if c.EvictedEpisode == 0 {
			n++
		}
	}
	return n
}

func evictionsDiffer(t *testing.T, base, got plumbRun) {
	var b, g []string
	for _, r := range base.recs {
		b = append(b, r.Evicted...)
	}
	for _, r := range got.recs {
		g = append(g, r.Evicted...)
	}
	require.NotEmpty(t, b)
	require.NotEmpty(t, g)
	// Card IDs are per run: compare the source cases of the evicted cards.
	require.NotEqual(t, evictedSources(base), evictedSources(got))
}

func evictedSources(r plumbRun) []string {
	var out []string
	for _, c := range r.cards {
		if c.EvictedEpisode != 0 {
			out = append(out, fmt.Sprintf("%d:%d:%s", c.EvictedEpisode, c.CreatedEpisode, c.Kind))
		}
	}
	sort.Strings(out)
	return out
}

func labels(r plumbRun) []string {
	var out []string
	for _, rec := range r.recs {
		out = append(out, rec.Labels...)
	}
	return out
}

// retirements lists the rules retired, by the episode that created them.
func retirements(r plumbRun) []string {
	var out []string
	for _, rec := range r.recs {
		for _, e := range rec.RuleEdits {
			if _, retired, ok := strings.Cut(e, "; retire "); ok {
				out = append(out, retired)
			}
		}
	}
	return out
}

// testLabel is the process label of the first test request.
func testLabel(r plumbRun) string {
	for i, ev := range r.events[0] {
		if ev.Action == clinic.RequestTest && i < len(r.recs[0].Labels) {
			return r.recs[0].Labels[i]
		}
	}
	return ""
}

func fewerCards(t *testing.T, base, got plumbRun) {
	require.Less(t, len(got.cards), len(base.cards), "the screen rejects more")
}

func maxRetrieved(r plumbRun) int {
	n := 0
	r.each(func(_ results.Record, evs []clinic.Event) {
		for _, ev := range evs {
			n = max(n, len(ev.RetrievedCards))
		}
	})
	return n
}

// retrieved lists the creating episode of every card shown, turn by turn.
func retrieved(r plumbRun) []string {
	created := map[string]int{}
	for _, c := range r.cards {
		created[c.ID] = c.CreatedEpisode
	}
	var out []string
	r.each(func(_ results.Record, evs []clinic.Event) {
		for _, ev := range evs {
			var s []string
			for _, id := range ev.RetrievedCards {
				s = append(s, strconv.Itoa(created[id]))
			}
			out = append(out, strings.Join(s, ","))
		}
	})
	return out
}

// TestExperimentOverridesReachEpisodes is issue 10's acceptance as stated: a
// 6-case experiment whose only condition sets episode.max_turns 3 records no
// episode of more than 3 turns, and one that sets episode.prices.cbc 999 bills
// 999 USD for each CBC (a doctor on the fake endpoint orders one every episode).
func TestExperimentOverridesReachEpisodes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two experiments on the embedded Temporal server")
	}
	env := enginetest.Start(t)
	srv := llmtest.New(t)
	srv.Script = func(_ int, r llmtest.Request) *llmtest.Reply {
		if r.Role != "doctor" {
			return nil
		}
		if !strings.Contains(r.User, "complete blood count [returned]") {
			return reply(map[string]any{"action": "REQUEST_TEST", "test_name": "full blood count"})
		}
		return reply(map[string]any{"action": "FINALIZE", "diagnosis": []string{"viral illness"}, "evidence": []string{"tired"},
			"plan": []string{"rest"}, "followup": []string{"review in a week"}})
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "temporal.yaml")
	writeYAML(t, cfg, map[string]any{"temporal": map[string]any{"address": env.Server.Address()}})
	for _, tc := range []struct {
		name     string
		settings map[string]any
		check    func(t *testing.T, recs []results.Record)
	}{
		{"turns", map[string]any{"episode": map[string]any{"max_turns": 3}}, func(t *testing.T, recs []results.Record) {
			for _, r := range recs {
				require.LessOrEqual(t, r.Turns, 3, r.EpisodeID)
			}
		}},
		{"prices", map[string]any{"episode": map[string]any{"prices": map[string]any{"cbc": 999}},
			"roles": map[string]any{"doctor": modelRole(srv.URL, "prices-A", "doctor")}}, func(t *testing.T, recs []results.Record) {
			for _, r := range recs {
				evs, err := env.Engine.Results.Events(context.Background(), r.EpisodeID, 100)
				require.NoError(t, err)
				cbc := 0
				for _, ev := range evs {
					if ev.Test == "complete blood count" && ev.Status == clinic.StatusReturned {
						cbc++
						require.Equal(t, 999+settings.Default().Episode.BaseTurnCost, ev.Cost, "%s: the CBC turn", r.EpisodeID)
					}
				}
				require.Equal(t, 1, cbc, r.EpisodeID)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.name+".yaml")
			writeYAML(t, file, map[string]any{"name": tc.name, "corpus": "builtin:stream", "limit": 6, "stage_size": 6,
				"conditions": []any{map[string]any{"name": "A", "kind": "stream", "memory": "empty", "settings": tc.settings}}})
			out, err := run(t, nil, "--config", cfg, "experiment", "run", file, "--wait")
			require.NoError(t, err, out)
			recs, err := env.Engine.Results.Records(context.Background(), tc.name+"-A")
			require.NoError(t, err)
			require.Len(t, recs, 6)
			tc.check(t, recs)
		})
	}
}
