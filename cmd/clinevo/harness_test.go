package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/internal/textfmt"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/results/sqlite"
	"github.com/clinevo/clinevo/view"
)

// The bad-input harness (issue 37): families of inputs a careful but
// adversarial user gives clinevo, each run against the command line (in
// process, on a data directory of its own) or the viewer, its outcome
// classified and the counts printed. Run it alone with
//
//	go test ./cmd/clinevo -run TestBadInputHarness -v
//
// and read the table it logs; docs/operations.md gives the last counts.

// Outcomes of a probe.
const (
	clearError    = "clear error"      // refused with exit status 2 and a message naming what is wrong
	handled       = "handled"          // done as asked, or, given a choice, what the user meant
	unclear       = "unclear"          // refused, but with another status or a message that does not say what is wrong
	acceptedWrong = "accepted wrongly" // done although it should have been refused
	crashed       = "crashed"          // a panic, or a 500 of the viewer
	dataLost      = "data lost"        // a file the input must not touch changed
)

// probe is one bad (or borderline) input.
type probe struct {
	family, name string
	// files are written under the probe's directory before it runs (DIR
	// in args and in file contents stands for it); guard lists those
	// that must be unchanged after it.
	files map[string]string
	guard []string
	env   map[string]string
	args  []string
	// refuse: the input must be refused (exit 2) with these words; empty:
	// it must succeed, and its output hold ok.
	refuse, ok string
	// setup runs before the probe (e.g. a bank the import must not change);
	// digest, when set, says what of it must be the same after the probe.
	setup  func(t *testing.T, dir string)
	digest func(t *testing.T, dir string) string
}

func TestBadInputHarness(t *testing.T) {
	var probes []probe
	for _, family := range [][]probe{argProbes(), corpusProbes(t), specProbes(), configProbes(), memoryProbes()} {
		probes = append(probes, family...)
	}
	counts := map[string]map[string]int{}
	var bad []string
	for _, p := range probes {
		var outcome, detail string
		// A subtest each: the variables a probe sets end with it.
		t.Run(p.family+"/"+p.name, func(t *testing.T) { outcome, detail = runProbe(t, p) })
		if counts[p.family] == nil {
			counts[p.family] = map[string]int{}
		}
		counts[p.family][outcome]++
		if outcome != clearError && outcome != handled {
			bad = append(bad, fmt.Sprintf("%s / %s: %s: %s", p.family, p.name, outcome, detail))
		}
	}
	for _, v := range viewerProbes(t) {
		if counts["viewer requests"] == nil {
			counts["viewer requests"] = map[string]int{}
		}
		counts["viewer requests"][v.outcome]++
		if v.outcome != clearError && v.outcome != handled {
			bad = append(bad, "viewer requests / "+v.name+": "+v.outcome+": "+v.detail)
		}
	}
	t.Log("\n" + countTable(counts))
	require.Empty(t, bad, "every input is a clear error or handled")
}

// runProbe runs one probe on a fresh directory and classifies it.
func runProbe(t *testing.T, p probe) (outcome, detail string) {
	dir := t.TempDir()
	sub := func(s string) string { return strings.ReplaceAll(s, "DIR", dir) }
	for name, body := range p.files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(sub(body)), 0o644))
	}
	if p.setup != nil {
		p.setup(t, dir)
	}
	before := snapshotFiles(t, dir, p.guard)
	if p.digest != nil {
		before = append(before, p.digest(t, dir)...)
	}
	args := []string{"--data-dir", filepath.Join(dir, "data")}
	for _, a := range p.args {
		args = append(args, sub(a))
	}
	out, err, panicked := runSafely(t, p.env, args)
	if panicked != "" {
		return crashed, panicked
	}
	after := snapshotFiles(t, dir, p.guard)
	if p.digest != nil {
		after = append(after, p.digest(t, dir)...)
	}
	if !bytes.Equal(before, after) {
		return dataLost, "a guarded file changed"
	}
	switch {
	case p.refuse == "" && err == nil && strings.Contains(out, sub(p.ok)):
		return handled, ""
	case p.refuse == "" && err == nil:
		return unclear, "the output lacks " + p.ok
	case p.refuse == "":
		return unclear, err.Error()
	case err == nil:
		return acceptedWrong, textfmt.Clip(out, 200)
	case exitCode(err) == exitBadInput && strings.Contains(err.Error(), sub(p.refuse)):
		return clearError, ""
	}
	return unclear, fmt.Sprintf("exit %d: %s", exitCode(err), textfmt.Clip(err.Error(), 300))
}

// runSafely runs the command line in process, turning a panic into its text.
func runSafely(t *testing.T, env map[string]string, args []string) (out string, err error, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	out, err = run(t, env, args...)
	return out, err, ""
}

func snapshotFiles(t *testing.T, dir string, names []string) []byte {
	var b bytes.Buffer
	for _, n := range names {
		c, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		b.WriteString(n + "\x00")
		b.Write(c)
	}
	return b.Bytes()
}

// countTable prints the counts by family and outcome.
func countTable(counts map[string]map[string]int) string {
	cols := []string{clearError, handled, unclear, acceptedWrong, crashed, dataLost}
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s", "family")
	for _, c := range cols {
		fmt.Fprintf(&b, " | %s", c)
	}
	b.WriteString("\n")
	total := map[string]int{}
	families := make([]string, 0, len(counts))
	for f := range counts {
		families = append(families, f)
	}
	sort.Strings(families)
	for _, f := range append(families, "total") {
		fmt.Fprintf(&b, "%-18s", f)
		for _, c := range cols {
			n := counts[f][c]
			if f == "total" {
				n = total[c]
			}
			total[c] += counts[f][c]
			fmt.Fprintf(&b, " | %*d", len(c), n)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func argProbes() []probe {
	const fam = "CLI arguments"
	p := func(name, refuse string, args ...string) probe {
		return probe{family: fam, name: name, args: args, refuse: refuse}
	}
	return []probe{
		p("a run ID with a slash", `run ID "a/b" holds '/'`, "stream", "start", "--run", "a/b"),
		p("a run ID with a space", `run ID "x y" holds ' '`, "stream", "start", "--run", "x y"),
		p("a run ID that is a path", `run ID "../../etc" holds '.'`, "stream", "start", "--run", "../../etc"),
		p("a run ID not in ASCII", `run ID "病例" holds '病'`, "stream", "start", "--run", "病例"),
		p("a negative limit", "--limit must be at least 0", "stream", "start", "--run", "r", "--limit", "-5"),
		p("a negative stage size", "--stage-size must be at least 1", "stream", "start", "--run", "r", "--stage-size", "-1"),
		p("a stage size of a million", "--stage-size must be at least 1 and at most 100000", "stream", "start", "--run", "r", "--stage-size", "1000000"),
		p("a negative activity timeout", "--activity-timeout must be at least 1", "stream", "start", "--run", "r", "--activity-timeout", "-10"),
		p("a fraction for a whole number", `invalid argument "3.7" for "--limit"`, "stream", "start", "--run", "r", "--limit", "3.7"),
		p("an unknown case", `case "nope" is not in corpus`, "stream", "start", "--run", "r", "--cases", "nope"),
		p("an unknown memory mode", `memory "forever"`, "stream", "start", "--run", "r", "--memory-mode", "forever"),
		p("a missing corpus", "missing.jsonl", "stream", "start", "--run", "r", "--corpus", "DIR/missing.jsonl"),
		p("an unknown split", `unknown split "nope"`, "stream", "start", "--run", "r", "--corpus", "builtin:nope"),
		p("a status of a path", `run ID "a/stream" holds '/'`, "stream", "status", "a/stream"),
		p("terminate without a reason", "--reason is required", "stream", "terminate", "r1"),
		p("terminate a path", `run ID "a/b" holds '/'`, "experiment", "terminate", "a/b", "--reason", "x"),
		p("an empty query", "TEXT is empty", "memory", "query", ""),
		p("a negative as-of", "--as-of -5", "memory", "query", "pain", "--as-of", "-5"),
		p("an unknown kind", `--kind "bogus"`, "memory", "query", "pain", "--kind", "bogus"),
		p("an unknown bank", `--bank "vault"`, "memory", "query", "pain", "--bank", "vault"),
		p("no cards", "--top 0", "memory", "query", "pain", "--top", "0"),
		p("a diff backwards", "memory diff: --from 5 --to 3: need 0 <= from < to", "memory", "diff", "--from", "5", "--to", "3"),
		p("a diff from before the start", "memory diff: --from -1", "memory", "diff", "--from", "-1"),
		p("a diff of a path", `memory diff: --run: run ID "../x"`, "memory", "diff", "--run", "../x", "--to", "3"),
		p("a public viewer without a token", "is not loopback: serving other machines needs --token", "view", "--listen", "0.0.0.0:7280"),
		p("a public viewer with a weak token", "is too weak to guard", "view", "--listen", "0.0.0.0:7280", "--token", "t"),
		p("a listen address without a port", `listen address "8233": want host:port`, "view", "--listen", "8233"),
		p("an unknown command", `unknown command "strem"`, "strem"),
		p("an unknown flag", "unknown flag: --limitt", "stream", "start", "--limitt", "3"),
		p("an unknown log level", `log.level (or --log-level) "loud"`, "--log-level", "loud", "runs", "list"),
	}
}

// nativeLine is a valid native case as one JSON line, changed by mod.
func nativeLine(mod func(*clinic.Case)) string {
	c := synth.Generate(7)["heldout"][0]
	mod(&c)
	b, _ := json.Marshal(c) // a generated case marshals
	return string(b)
}

func corpusProbes(t *testing.T) []probe {
	const fam = "importers"
	good := nativeLine(func(*clinic.Case) {})
	validate := func(name, body, refuse string) probe {
		return probe{family: fam, name: name, files: map[string]string{"in.jsonl": body}, args: []string{"corpus", "validate", "DIR/in.jsonl"}, refuse: refuse}
	}
	imp := func(name, format, body, refuse string, extra ...string) probe {
		return probe{family: fam, name: name, files: map[string]string{"in": body}, guard: []string{"in"},
			args: append([]string{"corpus", "import", format, "DIR/in", "--out", "DIR/out.jsonl"}, extra...), refuse: refuse}
	}
	ac, err := os.ReadFile(corpustest.AgentClinicPath(t))
	require.NoError(t, err)
	medevo := `{"case_id":%q,"patient_view":{"chief_complaint":"Chest pain","history_facts":["x"]},"manager_view":{"ground_truth":{"diagnosis":{"display_name":"Angina"}}}}`
	return []probe{
		validate("a byte-order mark", "\xef\xbb\xbf"+good+"\n", "DIR/in.jsonl:1: the file starts with a UTF-8 byte-order mark"),
		validate("a JSON array", "["+good+"]\n", "this file starts with a JSON array"),
		validate("Latin-1 text", strings.Replace(good, "opening_complaint\":\"", "opening_complaint\":\"\xe9", 1)+"\n", "is not UTF-8"),
		validate("a number", good+"\n42\n", "DIR/in.jsonl:2: a native corpus is JSON Lines"),
		validate("truncated JSON", good+"\n{\"schema_version\": 1, \"id\":\n", "DIR/in.jsonl:2: malformed JSON"),
		validate("a case ID not in ASCII", nativeLine(func(c *clinic.Case) { c.ID = "病例-0002" })+"\n", `field id: case ID "病例-0002" holds '病'`),
		validate("a 100 KB complaint", nativeLine(func(c *clinic.Case) { c.Patient.OpeningComplaint = strings.Repeat("w ", 50_000) })+"\n",
			"field patient_view.opening_complaint: 100000 bytes of text"),
		validate("a 600 KB line", nativeLine(func(c *clinic.Case) { c.Patient.OpeningComplaint = strings.Repeat("x", 600_000) })+"\n",
			"the line is longer than 524288 bytes"),
		validate("a duplicate case", good+"\n"+good+"\n", "duplicate case ID"),
		validate("an empty file", "", "no cases"),
		validate("binary garbage", "\x00\x01\x02\x03\xff\xfe", "is not UTF-8"),
		imp("output over its input", "agentclinic", string(ac), "is the input file", "--out", "DIR/in"),
		imp("an unknown format", "medqa", string(ac), `unknown format "medqa"`),
		imp("a MedEvoEval case ID not in ASCII", "medevoeval", fmt.Sprintf(medevo, "病例-0002"), `case ID "病例-0002" holds '病'`),
		imp("a MedEvoEval case with a space", "medevoeval", fmt.Sprintf(medevo, "case 2"), `case ID "case 2" holds ' '`),
		imp("SDBench records all invalid", "sdbench", `{"id":"a"}`+"\n"+`{"id":"b"}`+"\n", "no valid cases (2 records skipped)", "--skip-invalid"),
		imp("a BOM before an array", "medevoeval", "\xef\xbb\xbf["+fmt.Sprintf(medevo, "m1")+"]", "byte-order mark"),
		{family: fam, name: "output through a symbolic link to the input", files: map[string]string{"in": string(ac)}, guard: []string{"in"},
			setup: func(t *testing.T, dir string) {
				require.NoError(t, os.Symlink(filepath.Join(dir, "in"), filepath.Join(dir, "link")))
			},
			args: []string{"corpus", "import", "agentclinic", "DIR/in", "--out", "DIR/link"}, refuse: "is the input file"},
		{family: fam, name: "output through a hard link to the input", files: map[string]string{"in": string(ac)}, guard: []string{"in"},
			setup: func(t *testing.T, dir string) {
				require.NoError(t, os.Link(filepath.Join(dir, "in"), filepath.Join(dir, "hard")))
			},
			args: []string{"corpus", "import", "agentclinic", "DIR/in", "--out", "DIR/hard"}, refuse: "is the input file"},
		{family: fam, name: "a valid import", files: map[string]string{"in": string(ac)}, guard: []string{"in"},
			args: []string{"corpus", "import", "agentclinic", "DIR/in", "--out", "DIR/out.jsonl"}, ok: "cases imported from DIR/in"},
		imp("an AgentClinic NEJM line cut short", "agentclinic", nejmLine(t)[:300], "DIR/in:1: malformed JSON at byte 300"),
		imp("DiagnosisArena text that is not JSON", "diagnosisarena", "Case Information: a 40-year-old man\n", "DIR/in:1: malformed JSON at byte 1"),
		imp("a DiagnosisArena record without its case", "diagnosisarena", `{"id": 1}`+"\n", "DIR/in:1: field Case Information: required"),
		imp("DDXPlus patients without their dictionaries", "ddxplus", ddxHeader+ddxRow, "evidence dictionary (--file evidences=PATH)"),
		imp("a DDXPlus evidence code the dictionary lacks", "ddxplus", ddxHeader+strings.Replace(ddxRow, "'E_201']", "'E_201', 'E_999']", 1),
			`DIR/in: row 1 (line 2): field EVIDENCES: unknown evidence code "E_999"`, ddxDictionaries...),
		imp("a DDXPlus age below zero", "ddxplus", ddxHeader+strings.Replace(ddxRow, "5,", "-3,", 1), `field AGE: want a whole number of years, got "-3"`, ddxDictionaries...),
		imp("a DDXPlus quote left open", "ddxplus", ddxHeader+`"unclosed`+"\n", "row 1 (line 2): parse error on line 2", ddxDictionaries...),
	}
}

// DDXPlus patients: the release's header, one row, and the shipped
// dictionaries the importer decodes them through.
const (
	ddxHeader = "AGE,DIFFERENTIAL_DIAGNOSIS,SEX,PATHOLOGY,EVIDENCES,INITIAL_EVIDENCE\n"
	ddxRow    = `5,"[['URTI', 0.6]]",F,URTI,"['E_201']",E_201` + "\n"
)

var ddxDictionaries = []string{"--file", "evidences=../../benchmarks/ddxplus/data/release_evidences.json",
	"--file", "conditions=../../benchmarks/ddxplus/data/release_conditions.json"}

// nejmLine is the first case of AgentClinic's NEJM sample.
func nejmLine(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(corpustest.AgentClinicPath(t)), "agentclinic_nejm.jsonl"))
	require.NoError(t, err)
	line, _, _ := strings.Cut(string(b), "\n")
	return line
}

func specProbes() []probe {
	const fam = "experiment specs"
	const head = "name: x\ncorpus: builtin:stream\nheldout: builtin:heldout\n"
	const conds = "conditions:\n  - {name: A, kind: stream}\n"
	p := func(name, body, refuse string) probe {
		return probe{family: fam, name: name, files: map[string]string{"spec.yaml": body}, args: []string{"experiment", "validate", "DIR/spec.yaml"}, refuse: refuse}
	}
	return []probe{
		p("a negative limit", head+"limit: -5\n"+conds, "limit must be at least 0"),
		p("a fractional limit", head+"limit: 3.7\n"+conds, "line 4: limit: want a whole number, got 3.7"),
		p("a negative held-out limit", head+"heldout_limit: -3\n"+conds, "heldout_limit must be at least 0"),
		p("a negative stage size", head+"stage_size: -1\n"+conds, "stage_size must be at least 1"),
		p("a negative concurrency", head+"eval_concurrency: -2\n"+conds, "eval_concurrency must be at least 1"),
		p("a negative timeout", head+"activity_timeout_seconds: -10\n"+conds, "activity_timeout_seconds must be at least 1"),
		p("a limit past an int", head+"limit: 99999999999999999999\n"+conds, "limit"),
		p("an update stage of 0", head+"update_stages: [0]\n"+conds, "update_stages[0] must be at least 1"),
		p("an infinite setting", head+"settings: {scoring: {lambda: .inf}}\n"+conds, "settings.scoring.lambda: want a finite number"),
		p("a condition ID not in ASCII", head+"conditions:\n  - {name: 病, kind: stream}\n", "holds '病'"),
		p("an infinite benchmark key in a condition", head+"conditions:\n  - {name: A, kind: stream, settings: {episode: {visit_cost: .inf}}}\n",
			"conditions[0] (A).settings.episode.visit_cost: want a finite number, got +Inf"),
		p("garbage", "\x00\x01 not yaml", "control characters are not allowed"),
		p("an empty file", "", "got an empty document"),
		p("a list", "- a\n- b\n", "want a YAML mapping of the spec's keys"),
		p("an unknown key", head+"limt: 3\n"+conds, "field limt not found"),
		p("an alias bomb", "a: &a [x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c]\n", "experiment DIR/spec.yaml"),
		p("a valid spec", head+conds, "")}
}

func configProbes() []probe {
	const fam = "configuration"
	p := func(name, file, body, refuse string) probe {
		return probe{family: fam, name: name, files: map[string]string{file: body}, args: []string{"--config", "DIR/" + file, "corpus", "stats", "builtin:heldout"},
			refuse: refuse, ok: "cases"}
	}
	env := func(name, key, val, refuse string) probe {
		return probe{family: fam, name: name, env: map[string]string{key: val}, args: []string{"corpus", "stats", "builtin:heldout"}, refuse: refuse}
	}
	return []probe{
		p("a fraction for memory.k", "c.yaml", "memory:\n  k: 3.7\n", "memory.k: want a whole number, got 3.7"),
		p("an infinite weight", "c.yaml", "scoring:\n  lambda: .inf\n", "scoring.lambda: want a finite number, got +Inf"),
		p("a huge memory.dim", "c.yaml", "memory:\n  dim: 1000000000\n", "memory.dim must be at least 16 and at most 65536"),
		p("a huge max_tokens", "c.yaml", "roles:\n  doctor: {max_tokens: 99999999}\n", "roles.doctor.max_tokens must be at least 0"),
		p("garbage YAML", "c.yaml", "episode: [unclosed\n", "While parsing config: yaml: line 1"),
		p("garbage TOML", "c.toml", "[memory\nk = \n", "While parsing config: toml"),
		p("a JSON array", "c.json", "[1, 2]", "While parsing config"),
		p("an unknown key", "c.yaml", "memroy:\n  k: 5\n", "unknown key memroy.k"),
		p("a text for a number", "c.yaml", "episode:\n  max_turns: ten\n", `episode.max_turns: want a whole number, got "ten"`),
		p("a negative budget", "c.yaml", "budget:\n  usd: -1\n", "budget.usd and budget.tokens must not be negative"),
		env("a text in a variable", "CLINEVO_MEMORY_K", "lots", `environment variable CLINEVO_MEMORY_K: memory.k: want a whole number, got "lots"`),
		env("an infinite variable", "CLINEVO_SCORING_LAMBDA", "inf", "scoring.lambda: want a number"),
		p("an infinite benchmark key", "c.yaml", "profile: sdbench\nepisode:\n  visit_cost: .inf\n", "episode.visit_cost: want a finite number, got +Inf"),
		p("an ensemble of a hundred million panels", "c.yaml", "profile: sdbench\nepisode:\n  variant: ensemble\n  panels: 100000000\n",
			"episode.panels (the ensemble variant's) must be at least 2 and at most 20, got 100000000"),
		p("a step cap of a billion", "c.yaml", "profile: klinike\nepisode:\n  max_steps: 1000000000\n", "episode.max_steps must be at least 0 and at most 1000"),
		{family: fam, name: "an infinite benchmark variable", env: map[string]string{"CLINEVO_PROFILE": "sdbench", "CLINEVO_EPISODE_VISIT_COST": "inf"},
			args: []string{"corpus", "stats", "builtin:heldout"}, refuse: `episode.visit_cost: want a finite number, got "inf"`},
		p("a valid file", "c.yaml", "memory:\n  k: 4\n", ""),
	}
}

func memoryProbes() []probe {
	const fam = "memory import"
	const good = `{"id":"a","kind":"correction","text":"t","bank":"correction","run":"r1","pass":1,"stage":1,"created_episode":3}`
	bank := func(t *testing.T, dir string) {
		ctx := context.Background()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
		st, err := local.Open(ctx, filepath.Join(dir, "data", "memory.db"), memory.HashEmbedder{D: 512})
		require.NoError(t, err)
		defer st.Close()
		require.NoError(t, st.Upsert(ctx, []clinic.Card{{CardHint: clinic.CardHint{ID: "a", Kind: clinic.CardCorrection, Text: "a finished run's card"},
			Bank: "correction", Run: "done", Pass: 1, Stage: 1, CreatedEpisode: 2}}))
	}
	cards := func(t *testing.T, dir string) string {
		st, err := local.OpenReader(context.Background(), filepath.Join(dir, "data", "memory.db"), memory.HashEmbedder{D: 512})
		require.NoError(t, err)
		defer st.Close()
		list, err := st.List(context.Background(), memory.Filter{IncludeEvicted: true})
		require.NoError(t, err)
		b, err := json.Marshal(list)
		require.NoError(t, err)
		return string(b)
	}
	p := func(name, body, refuse string, extra ...string) probe {
		return probe{family: fam, name: name, files: map[string]string{"cards.jsonl": body}, setup: bank, digest: cards,
			args: append([]string{"memory", "import", "DIR/cards.jsonl"}, extra...), refuse: refuse}
	}
	rep := func(from, to string) string { return strings.Replace(good, from, to, 1) + "\n" }
	replace := p("another card under an ID the bank holds, --replace", rep(`"id":"a"`, `"id":"a"`), "")
	replace.digest, replace.ok = nil, "replaced card a (a correction card of run done, episode 2)"
	replace.args = append(replace.args, "--replace")
	return []probe{
		p("a run that is a path", rep(`"run":"r1"`, `"run":"../../etc"`), `field run: run ID "../../etc"`),
		p("a negative episode", rep(`"created_episode":3`, `"created_episode":-4`), "field created_episode must be at least 0"),
		p("an eviction before creation", rep(`"created_episode":3`, `"created_episode":3,"evicted_episode":2`), "is before created_episode 3"),
		p("an unknown bank", rep(`"bank":"correction"`, `"bank":"vault"`), `field bank: "vault"`),
		p("an unknown kind", rep(`"kind":"correction"`, `"kind":"poem"`), `field kind "poem"`),
		p("another card under an ID the bank holds", rep(`"id":"a"`, `"id":"a"`), "an import changes no card unless --replace asks it to"),
		p("text that is not UTF-8", rep(`"text":"t"`, "\"text\":\"\xff\""), "is not UTF-8"),
		p("malformed JSON", `{"id":`+"\n", "cards.jsonl:1: not a card"),
		{family: fam, name: "a missing file", setup: bank, digest: cards, args: []string{"memory", "import", "DIR/none.jsonl"}, refuse: "no such file"},
		replace,
	}
}

// viewerProbe is one request to the viewer and its outcome.
type viewerProbe struct{ name, outcome, detail string }

// viewerProbes sends bad requests to a viewer on a store with a corrupt row,
// as `clinevo view` serves it on loopback.
func viewerProbes(t *testing.T) []viewerProbe {
	ctx := context.Background()
	dir := t.TempDir()
	res, err := sqlite.Open(ctx, filepath.Join(dir, "results.db"))
	require.NoError(t, err)
	defer res.Close()
	mem, err := local.Open(ctx, filepath.Join(dir, "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	defer mem.Close()
	require.NoError(t, res.PutRun(ctx, results.Run{Run: "r", Kind: "stream", WorkflowID: "r/stream", Spec: json.RawMessage(`{"run_id":"r"}`)}))
	require.NoError(t, res.CompleteRun(ctx, "r", "stream", []byte(`{not json`)))
	srv, err := view.New(view.Options{Results: res, Memory: mem, Listen: "127.0.0.1:7280"})
	require.NoError(t, err)
	var out []viewerProbe
	for _, q := range []struct {
		name, method, host, path, auth string
		status                         int
		words                          string
	}{
		{"a rebound host name", "GET", "attacker.example:7280", "/", "", http.StatusMisdirectedRequest, "is not this viewer's address"},
		{"another IP", "GET", "192.0.2.9:7280", "/", "", http.StatusMisdirectedRequest, "is not this viewer's address"},
		{"an unknown kind", "GET", "127.0.0.1:7280", "/memory?kind=bogus", "", http.StatusBadRequest, `parameter kind: kind "bogus"`},
		{"an unknown bank", "GET", "127.0.0.1:7280", "/memory?bank=vault", "", http.StatusBadRequest, `parameter bank: bank "vault"`},
		{"a negative episode", "GET", "127.0.0.1:7280", "/memory?as_of=-1", "", http.StatusBadRequest, "parameter as_of"},
		{"a word for a number", "GET", "127.0.0.1:7280", "/memory?top=abc", "", http.StatusBadRequest, "parameter top"},
		{"a backward diff", "GET", "127.0.0.1:7280", "/memory?from=5&to=2", "", http.StatusBadRequest, "need 0 <= from < to"},
		{"a write", "POST", "127.0.0.1:7280", "/", "", http.StatusMethodNotAllowed, "read-only"},
		{"a run without an ID", "GET", "127.0.0.1:7280", "/run", "", http.StatusBadRequest, "needs ?id=RUN"},
		{"an unknown card", "GET", "127.0.0.1:7280", "/card?id=nope", "", http.StatusNotFound, "not found"},
		{"an index with a corrupt row", "GET", "127.0.0.1:7280", "/", "", http.StatusOK, "does not decode"},
		{"localhost", "GET", "localhost:7280", "/memory", "", http.StatusOK, "Memory"},
	} {
		req := httptest.NewRequest(q.method, "http://"+q.host+q.path, nil)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		body := w.Body.String()
		p := viewerProbe{name: q.name}
		switch {
		case w.Code >= 500:
			p.outcome, p.detail = crashed, textfmt.Clip(body, 200)
		case w.Code == q.status && strings.Contains(body, q.words) && w.Code < 300:
			p.outcome = handled
		case w.Code == q.status && strings.Contains(body, q.words):
			p.outcome = clearError
		case w.Code < 300 && q.status >= 400:
			p.outcome, p.detail = acceptedWrong, fmt.Sprintf("status %d", w.Code)
		default:
			p.outcome, p.detail = unclear, fmt.Sprintf("status %d: %s", w.Code, textfmt.Clip(body, 200))
		}
		out = append(out, p)
	}
	return out
}
