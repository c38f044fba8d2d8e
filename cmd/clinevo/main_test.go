package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/engine"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/settings"
)

func run(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"--data-dir", t.TempDir()}, args...))
	err := root.Execute()
	return out.String(), err
}

// TestStreamStartValidatesFirst checks that bad input is refused before any
// connection to Temporal is made (none is running here).
func TestStreamStartValidatesFirst(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"unknown corpus", nil, []string{"stream", "start", "--run", "r", "--corpus", "missing.jsonl"}, "missing.jsonl"},
		{"unknown split", nil, []string{"stream", "start", "--run", "r", "--corpus", "builtin:nope"}, `unknown split "nope"`},
		{"unknown case", nil, []string{"stream", "start", "--run", "r", "--cases", "stream-0001,stream-9999"}, `case "stream-9999" is not in corpus builtin:stream`},
		{"invalid memory budget", map[string]string{"CLINEVO_EVOLVER_MEMORY_BUDGET": "0"}, []string{"stream", "start", "--run", "r"}, "memory_budget (B_M) must be at least 1"},
		{"invalid stage size", nil, []string{"stream", "start", "--run", "r", "--stage-size", "-1"}, "stream start: --stage-size must be at least 1 and at most 100000 (0: the default, 50), got -1"},
		{"negative limit", nil, []string{"stream", "start", "--run", "r", "--limit", "-5"}, "stream start: --limit must be at least 0 and at most 1000000 (0: every case), got -5"},
		{"negative activity timeout", nil, []string{"stream", "start", "--run", "r", "--activity-timeout", "-10"}, "stream start: --activity-timeout must be at least 1 and at most 86400 (0: the default, 120), got -10"},
		{"missing run", nil, []string{"stream", "start"}, "run_id is required"},
		{"bad memory mode", nil, []string{"stream", "start", "--run", "r", "--memory-mode", "forever"}, `memory "forever"`},
		{"bad memory mode by its deprecated name", nil, []string{"stream", "start", "--run", "r", "--memory", "forever"}, `memory "forever"`},
		{"carry without source", nil, []string{"stream", "start", "--run", "r", "--memory-mode", "carry"}, "--memory-mode carry needs --carry-from"},
		{"carry from an unfinished run", nil, []string{"stream", "start", "--run", "r", "--memory-mode", "carry", "--carry-from", "r0"}, "carry from r0: the run has not finished"},
		{"carry source without carry", nil, []string{"stream", "start", "--run", "r", "--carry-from", "r0"}, "--carry-from needs --memory-mode carry"},
		{"unknown profile", nil, []string{"stream", "start", "--run", "r", "--profile", "surgery"}, `profile "surgery"`},
		{"invalid max turns", map[string]string{"CLINEVO_EPISODE_MAX_TURNS": "0"}, []string{"stream", "start", "--run", "r"}, "max_turns must be at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, tc.env, tc.args...)
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "connect to Temporal")
		})
	}
}

func TestCorpusCommands(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, nil, "corpus", "gen", "--seed", "7", "--out", dir)
	require.NoError(t, err)
	require.Contains(t, out, "stream.jsonl: 500 cases")
	out, err = run(t, nil, "corpus", "validate", filepath.Join(dir, "heldout.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "100 cases, all valid")
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"schema_version\": 2}\n"), 0o644))
	_, err = run(t, nil, "corpus", "validate", bad)
	require.ErrorContains(t, err, "bad.jsonl:1")
	require.ErrorContains(t, err, "schema_version")
	out, err = run(t, nil, "episode", "run", "--case", "heldout-0003", "--corpus", filepath.Join(dir, "heldout.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "scores: S=")
	_, err = run(t, nil, "episode", "run", "--case", "nope")
	require.ErrorContains(t, err, `case "nope" is not in corpus builtin:stream`)

	// Version 1 stays reproducible by name; strict validation names the tests
	// that give a diagnosis away; stats compare openings across corpora.
	v1 := t.TempDir()
	_, err = run(t, nil, "corpus", "gen", "--version", "1", "--seed", "7", "--out", v1)
	require.NoError(t, err)
	_, err = run(t, nil, "corpus", "validate", "--strict", filepath.Join(v1, "stream.jsonl"))
	require.ErrorContains(t, err, "strict: whether a test returns a result depends on the condition for 19 tests")
	require.ErrorContains(t, err, "d dimer: a result in every case of 1 of 46 conditions (dvt)")
	out, err = run(t, nil, "corpus", "validate", "--strict", filepath.Join(dir, "stream.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "500 cases, all valid")
	out, err = run(t, nil, "corpus", "stats", "builtin:heldout@7", "--against", "builtin:stream@7")
	require.NoError(t, err)
	require.Contains(t, out, "openings of builtin:heldout@7 seen in builtin:stream@7: 0 shared normalised openings, 0 of 100 cases")
	require.Contains(t, out, "tests whose availability depends on the condition: 0")
	out, err = run(t, nil, "corpus", "stats", "builtin:v1:heldout@7", "--against", filepath.Join(v1, "stream.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "82 shared normalised openings, 98 of 100 cases")
	_, err = run(t, nil, "corpus", "gen", "--version", "4", "--out", v1)
	require.ErrorContains(t, err, "unknown generator version 4")
}

// TestGPAgentCommands writes and validates the GP corpus, plays a case that
// needs referral in the gpagent profile (the built-in doctor without memory
// misses it) and validates the shipped GPAgentBench experiment.
func TestGPAgentCommands(t *testing.T) {
	dir := t.TempDir()
	out, err := run(t, nil, "corpus", "gen", "--benchmark", "gpagent", "--seed", "7", "--out", dir)
	require.NoError(t, err)
	require.Contains(t, out, "gp.jsonl: 500 cases")
	require.Contains(t, out, "gp-heldout.jsonl: 100 cases")
	out, err = run(t, nil, "corpus", "validate", filepath.Join(dir, "gp.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "500 cases, all valid")
	_, err = run(t, nil, "corpus", "gen", "--benchmark", "gpagent", "--version", "1", "--out", dir)
	require.ErrorContains(t, err, "benchmark gpagent: split gp is built on generator version v2 only, not v1")
	_, err = run(t, nil, "corpus", "gen", "--benchmark", "nowhere", "--out", dir)
	require.ErrorContains(t, err, `profile "nowhere" is not available`)

	cp, err := buildLibrary(t).Load("builtin:gp@7")
	require.NoError(t, err)
	refer := ""
	for _, c := range cp.Cases {
		if gpagent.Pathway(&c) == gpagent.PathwayRefer {
			refer = c.ID
			break
		}
	}
	out, err = run(t, nil, "episode", "run", "--profile", "gpagent", "--corpus", "builtin:gp@7", "--case", refer)
	require.NoError(t, err)
	for _, want := range []string{"DIAGNOSE", "TREAT", "disposition: manage", "referral=missed", "USD", "mgmt=0", "miss_refer=1", "dest=0", "cost_safety=1"} {
		require.Contains(t, out, want)
	}
	out, err = run(t, nil, "experiment", "validate", "../../benchmarks/gpagent/gpagentbench.yaml")
	require.NoError(t, err)
	require.Contains(t, out, "experiment gpagentbench: 8 conditions, valid")
}

func TestExperimentValidate(t *testing.T) {
	out, err := run(t, nil, "experiment", "validate", "../../experiments/quick.yaml")
	require.NoError(t, err)
	require.Contains(t, out, "experiment quick: 5 conditions, valid")
	require.Contains(t, out, "CONDITION")
	require.Regexp(t, `(?m)^E0\s+stream\s+medevoeval\s+disabled\s+-\s+Tmax 10, Emax 3, MDT off\s`, out)
	require.Regexp(t, `(?m)^E0\s+stream\s+medevoeval\s+disabled\s+-\s+Tmax 10, Emax 3, MDT off\s+\S+\s+\S+\s+clinevo\s`, out, "the METHOD column: E0 runs clinevo's own evolver")
	out, err = run(t, nil, "experiment", "validate", "../../experiments/methods.yaml")
	require.NoError(t, err)
	require.Contains(t, out, "METHOD")
	for _, m := range settings.Methods {
		// Every method appears in the METHOD column of its GPAgentBench condition.
		require.Regexp(t, `(?m)^gpagent-`+m+`\s.*\s`+m+`\s`, out, m)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: x\ncorpus: builtin:stream\nconditions:\n  - {name: A, kind: stream, settings: {episode: {max_turnz: 3}}}\n"), 0o644))
	_, err = run(t, nil, "experiment", "validate", bad)
	require.ErrorContains(t, err, "conditions[0] (A): settings: episode.max_turnz: unknown settings key (known: ")
	require.NotContains(t, err.Error(), "connect to Temporal")
}

func TestEpisodeRunMedInquire(t *testing.T) {
	out, err := run(t, nil, "episode", "run", "--profile", "medinquire", "--case", "stream-0001")
	require.NoError(t, err)
	require.Contains(t, out, "cost=")
	require.Contains(t, out, "grade=")
	require.Contains(t, out, "evi=not scored plan=not scored", "Med-Inquire grades the diagnosis alone")
	require.NotContains(t, out, "CALL_MDT")
}

// TestEpisodeRunMedInquireModelDoctor plays the Med-Inquire episode with a
// model doctor on the fake endpoint and reads every prompt the doctor was
// sent: none lists the case's tests (EvoClinician §3: no menu of tests), and
// a test ordered by free text is billed.
func TestEpisodeRunMedInquireModelDoctor(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
		if r.Role != "doctor" {
			return nil
		}
		switch strings.Count(r.User, "\n- ") {
		case 0:
			return &llmtest.Reply{Status: 200, Content: `{"action":"ASK","question":"When did it start?","utterance":"When did it start?"}`}
		case 1:
			return &llmtest.Reply{Status: 200, Content: `{"action":"REQUEST_TEST","test_name":"full blood count","utterance":"I will order a blood test."}`}
		}
		return &llmtest.Reply{Status: 200, Content: `{"action":"FINALIZE","diagnosis":["Candidal vulvovaginitis"],"utterance":"My diagnosis."}`}
	}
	env := map[string]string{"CLINEVO_ROLES_DOCTOR_BACKEND": "openai", "CLINEVO_ROLES_DOCTOR_BASE_URL": srv.BaseURL(),
		"CLINEVO_ROLES_DOCTOR_MODEL": "fake-doctor", "CLINEVO_ROLES_DOCTOR_API_KEY_ENV": ""}
	out, err := run(t, env, "episode", "run", "--profile", "medinquire", "--case", "stream-0001")
	require.NoError(t, err)
	require.Contains(t, out, "REQUEST_TEST")
	require.Contains(t, out, "cost=")

	c, err := buildLibrary(t).Load("builtin:stream")
	require.NoError(t, err)
	cs, ok := c.Case("stream-0001")
	require.True(t, ok)
	require.NotEmpty(t, cs.Exam.Catalog)
	var doctor int
	for _, r := range srv.Requests() {
		if r.Role != "doctor" {
			continue
		}
		doctor++
		// Everything but the results of tests already ordered.
		prompt, _, _ := strings.Cut(r.System+"\n"+r.User, "Tests and examinations:")
		require.NotContains(t, prompt, "Test catalog")
		require.Contains(t, prompt, "No list of tests is given")
		for _, name := range cs.Exam.Catalog {
			require.NotContains(t, strings.ToLower(prompt), strings.ToLower(name), "the prompt names a test from the case's catalog")
		}
	}
	require.Equal(t, 3, doctor, "ask, order, submit: no reformat request")
}

// TestCorpusImportSkipInvalid imports the AgentClinic cases with a hand-written
// asymptomatic case (no primary symptom) and a malformed line.
func TestCorpusImportSkipInvalid(t *testing.T) {
	dir := t.TempDir()
	real, err := os.ReadFile(corpustest.AgentClinicPath(t))
	require.NoError(t, err)
	asymptomatic := `{"OSCE_Examination": {"Patient_Actor": {"Demographics": "61-year-old woman", "History": "She comes for the result of a screening colonoscopy. She feels well.", "Symptoms": {}}, "Correct_Diagnosis": "Tubular adenoma of the colon"}}`
	in := filepath.Join(dir, "in.jsonl")
	require.NoError(t, os.WriteFile(in, append(real, []byte(asymptomatic+"\n{\"OSCE_Examination\": \n")...), 0o644))
	realLines := bytes.Count(real, []byte("\n"))
	outFile := filepath.Join(dir, "out.jsonl")

	// Without --skip-invalid the malformed line fails the import and nothing is written.
	_, err = run(t, nil, "corpus", "import", "agentclinic", in, "--out", outFile)
	require.ErrorContains(t, err, fmt.Sprintf("%s:%d: malformed JSON", in, realLines+2))
	require.NoFileExists(t, outFile)

	out, err := run(t, nil, "corpus", "import", "agentclinic", in, "--out", outFile, "--skip-invalid")
	require.NoError(t, err)
	require.Contains(t, out, fmt.Sprintf("%s:%d: malformed JSON", in, realLines+2))
	require.Contains(t, out, "skipped lines: 1\n")
	require.Contains(t, out, fmt.Sprintf("%s: %d cases imported", outFile, realLines+1))
	c, err := buildLibrary(t).Load(outFile)
	require.NoError(t, err)
	require.Len(t, c.Cases, realLines+1)
	got, ok := c.Case(fmt.Sprintf("agentclinic-%03d", realLines+1))
	require.True(t, ok, "the asymptomatic case is imported")
	require.Equal(t, "She comes for the result of a screening colonoscopy.", got.Patient.OpeningComplaint)

	_, err = run(t, nil, "corpus", "import", "medevoeval", in, "--out", outFile, "--skip-invalid")
	require.ErrorContains(t, err, "corpus import medevoeval: --skip-invalid is not supported")
}

// TestCorpusImportDDXPlus imports DDXPlus patients through dictionaries kept
// elsewhere (--file) with one row naming an unknown evidence code: an error
// naming the file, row, line and field, or with --skip-invalid the rest.
func TestCorpusImportDDXPlus(t *testing.T) {
	dir := t.TempDir()
	data := "../../benchmarks/ddxplus/data/"
	in := filepath.Join(dir, "patients.csv")
	row := `5,"[['URTI', 0.6]]",F,URTI,"['E_201', 'E_999']",E_201`
	csv, err := os.ReadFile(data + "release_test_patients_sample300.csv")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(in, append(csv, []byte(row+"\n")...), 0o644))
	outFile := filepath.Join(dir, "out.jsonl")
	files := []string{"--file", "evidences=" + data + "release_evidences.json", "--file", "conditions=" + data + "release_conditions.json"}

	_, err = run(t, nil, append([]string{"corpus", "import", "ddxplus", in, "--out", outFile}, files...)...)
	require.ErrorContains(t, err, in+`: row 301 (line 302): field EVIDENCES: unknown evidence code "E_999"`)
	require.NoFileExists(t, outFile)
	out, err := run(t, nil, append([]string{"corpus", "import", "ddxplus", in, "--out", outFile, "--skip-invalid"}, files...)...)
	require.NoError(t, err)
	require.Contains(t, out, "skipped lines: 1\n")
	require.Contains(t, out, outFile+": 300 cases imported")
	_, err = run(t, nil, "corpus", "validate", outFile)
	require.NoError(t, err)
	_, err = run(t, nil, "corpus", "import", "ddxplus", in, "--out", outFile, "--file", "symptoms=x.json")
	require.ErrorContains(t, err, "--file symptoms: unknown companion file, want evidences, conditions")
}

// TestEpisodeRunKlinike: the printed trace shows each tool call with its
// arguments and result, then the gates D, W, A, H and strict success.
func TestEpisodeRunKlinike(t *testing.T) {
	out, err := run(t, nil, "episode", "run", "--profile", "klinike", "--corpus", "builtin:klinike@7", "--case", "klinike-0001")
	require.NoError(t, err)
	require.Contains(t, out, "TOOL_CALL    returned      get_patient_vitals {}\n     > BP ")
	require.Contains(t, out, `TOOL_CALL    finalized     record_diagnosis {"confidence":"low","diagnosis":"undifferentiated presentation`)
	require.Regexp(t, `metrics: a=\S+ d=\S+ h=\S+ pass1=\S+ r_multi=\S+ w=\S+\n`, out)
	out, err = run(t, nil, "experiment", "validate", "../../benchmarks/klinike/klinikebench.yaml")
	require.NoError(t, err)
	require.Contains(t, out, "experiment klinikebench: 18 conditions, valid")
	// KlinikeBench has steps, not MedEvoEval's Tmax, Emax and MDT.
	require.Regexp(t, `(?m)^L0\s+stream\s+klinike\s+disabled\s+-\s+steps 32, patient turns 10\s+interactive\s`, out)
}

// A reading command pointed at a data dir where nothing has run says so and
// creates nothing there.
func TestReadersRefuseAnEmptyDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	for _, args := range [][]string{{"memory", "stats"}, {"memory", "query", "chest pain"}, {"memory", "export"}} {
		r := newRoot()
		var out bytes.Buffer
		r.SetOut(&out)
		r.SetErr(&out)
		r.SetArgs(append([]string{"--data-dir", dir}, args...))
		require.ErrorContains(t, r.Execute(), "nothing has run with this data_dir", args)
		_, err := os.Stat(dir)
		require.ErrorIs(t, err, os.ErrNotExist, args)
	}
}

// buildSet is the build's benchmarks, as the CLI is handed them.
func buildSet(t testing.TB) bench.Set {
	t.Helper()
	set, err := engine.Benchmarks()
	require.NoError(t, err)
	return set
}

// buildLibrary reads cases as the CLI does.
func buildLibrary(t testing.TB) corpus.Library { return corpus.NewLibrary(buildSet(t)) }

// TestCorpusImportPublished imports DiagnosisArena's release (the copy in
// the repository) and AgentClinic's NEJM cases: the import names each case
// it redacted, stats count them, and --drop-image-cases leaves out the NEJM
// cases with an image (every one of the sample).
func TestCorpusImportPublished(t *testing.T) {
	dir := t.TempDir()
	outFile := filepath.Join(dir, "arena.jsonl")
	release := filepath.Join("..", "..", "benchmarks", "medinquire", "data", "diagnosisarena", "test-00000-of-00001.parquet")
	out, err := run(t, nil, "corpus", "import", "diagnosisarena", release, "--out", outFile)
	require.NoError(t, err)
	require.Contains(t, out, `case diagnosisarena-0075: redacted: exam_view.findings: dropped a sentence naming "Foreign body embedded in the laryngeal surface of the epiglottis"`)
	require.Contains(t, out, "redacted cases: 2 (a text named the diagnosis)\n")
	require.Contains(t, out, outFile+": 915 cases imported")
	out, err = run(t, nil, "corpus", "stats", outFile)
	require.NoError(t, err)
	require.Contains(t, out, "redacted by the importer's leak guard: 2 cases, 2 texts naming the diagnosis\n")

	nejm := filepath.Join(filepath.Dir(corpustest.AgentClinicPath(t)), "agentclinic_nejm.jsonl")
	out, err = run(t, nil, "corpus", "import", "agentclinic", nejm, "--out", filepath.Join(dir, "nejm.jsonl"))
	require.NoError(t, err)
	require.Contains(t, out, "15 cases imported")
	_, err = run(t, nil, "corpus", "import", "agentclinic", nejm, "--out", filepath.Join(dir, "none.jsonl"), "--drop-image-cases")
	require.ErrorContains(t, err, "no cases (0 lines skipped, 15 image cases dropped)")
}
