package llm_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinevo/clinevo/bench"
	"github.com/clinevo/clinevo/benchmarks/all"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

// replySeeds are real replies of every role (TestEveryRoleReadsRealReplies)
// and broken ones: truncated, nested, huge numbers, wrong types, prose.
var replySeeds = []string{
	`{"action":"ASK","question":"When did it start?","utterance":"When did it start?"}`,
	`{"action":"FINALIZE","diagnosis":["Migraine"],"evidence":["aura"],"plan":["rest"],"followup":["2 weeks"]}`,
	`Sure. {"answer":"A few days.","revealed_fact_ids":["f1"],"unanswered_reason":"NONE","tone":"calm"}`,
	"```json\n{\"match\":\" Alias\",\"item\":\"ecg\",\"confidence\":0.9}\n```",
	`{"advice":"Ask about fever.","next_action":"ask","question":"Any fever?","urgency":"low","refs":[]}`,
	`{"diagnosis_grade":0.75,"matched_evidence":[],"hallucinated_evidence":[],"matched_plan":[],"unsafe_plan":[],"reasoning":"close"}`,
	`{"labels":[{"turn":0,"label":"high_yield","rationale":"useful","score":3},{"turn":1,"label":" Low_Yield ","rationale":"ok"}],"summary":"fine"}`,
	`{"edits":[{"op":"ADD","text":"ASK triggers WHEN headache: they separate","why":"x"}],"cards":[{"kind":"Correction","text":"IF headache AVOID guessing","priority":1}]}`,
	`<action>ASK</action><question>Where does it hurt?</question>`, `<action>DIAGNOSE</action><diagnosis>flu</diagnosis>`,
	`{"action":`, `{"action":"ASK","question":{"nested":[1,2,{"x":null}]}}`, `{"labels":[{"turn":-1,"label":"x"},{"turn":99999999999999999999}]}`,
	`{"diagnosis_grade":1e308}`, `{"diagnosis_grade":"high"}`, `[]`, `null`, ``, "I think it is a migraine.", `{}{}{}`, "{\"a\":\"\x00\xff\"}",
}

// fuzzServer is the fake endpoint answering every request with the reply
// the fuzz input gives.
type fuzzServer struct {
	*llmtest.Server
	mu    sync.Mutex
	reply string
	// call makes the reply a function call: its first word the function's
	// name, the rest its arguments.
	call bool
}

func newFuzzServer(f *testing.F) *fuzzServer {
	s := &fuzzServer{Server: llmtest.New(f)}
	s.Script = func(int, llmtest.Request) *llmtest.Reply {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.call {
			return &llmtest.Reply{Status: 200, Content: s.reply}
		}
		name, args, _ := strings.Cut(s.reply, " ")
		return &llmtest.Reply{Status: 200, Finish: "tool_calls", Message: map[string]any{"tool_calls": []any{map[string]any{
			"id": "call_0", "type": "function", "function": map[string]any{"name": name, "arguments": args}}}}}
	}
	return s
}

func (s *fuzzServer) answer(reply string, call bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reply, s.call = reply, call
}

// FuzzRoleReplies gives every shared role's reply reader any reply: none
// may panic or hang; a reply it cannot use is an error or a marked llm
// error, never a crash.
func FuzzRoleReplies(f *testing.F) {
	for i, s := range replySeeds {
		f.Add(s, uint8(i))
	}
	srv := newFuzzServer(f)
	c := synth.Generate(7)["stream"][0]
	events := []clinic.Event{{Turn: 0, Action: clinic.Ask, Question: "q", Status: clinic.StatusReturned, Reply: "a"},
		{Turn: 1, Action: clinic.Finalize, Status: clinic.StatusFinalized}}
	f.Fuzz(func(t *testing.T, reply string, role uint8) {
		srv.answer(reply, false)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cl := func(name string) *llm.Client { return srv.Client(t, name, nil) }
		var err error
		switch role % 8 {
		case 0:
			_, err = llm.Doctor{C: cl("doctor")}.Decide(ctx, view())
		case 1:
			_, err = llm.Patient{C: cl("patient")}.Answer(ctx, episode.PatientQuery{View: c.Patient, Question: "When did it start?"})
		case 2:
			_, _, err = llm.Exam{C: cl("exam")}.Resolve(ctx, "heart tracing", catalog.Default())
		case 3:
			_, err = llm.Consultant{C: cl("consultant")}.Advise(ctx, view(), "what next?")
		case 4:
			_, err = llm.Judge{C: cl("judge")}.Judge(ctx, &c, "revealed", clinic.FinalOutput{Diagnosis: []string{"x"}})
		case 5:
			_, err = llm.Judge{C: cl("judge")}.JudgeDiagnosis(ctx, &c, []string{"x"})
		case 6:
			_, err = llm.ProcessGrader{C: cl("grader")}.GradeProcess(ctx, grader.ProcessInput{Events: events}, nil)
		default:
			_, err = llm.Evolver{C: cl("evolver")}.Evolve(ctx, settings.Default().Evolver, evolver.Input{Run: "r", CaseID: "c1", Episode: 1, Pass: 1,
				Stage: 1, WriteCards: true}, nil, nil)
		}
		if ctx.Err() != nil {
			t.Fatalf("role %d hung on %q: %v", role%8, reply, err)
		}
	})
}

// FuzzBenchmarkReplies plays one episode of every benchmark with its model
// doctor (in each reply format), its judge and the model form of every role
// it adds (SDBench's gatekeeper) answering any reply: the benchmarks'
// readers of JSON, tagged and function-calling replies may refuse a reply,
// never panic or hang.
func FuzzBenchmarkReplies(f *testing.F) {
	set, err := all.Set()
	if err != nil {
		f.Fatal(err)
	}
	names := set.Names()
	sort.Strings(names)
	// A seed meant for one benchmark names it: the list grows.
	benchOf := func(name string) uint8 {
		i := slices.Index(names, name)
		if i < 0 {
			f.Fatalf("no benchmark %s", name)
		}
		return uint8(i)
	}
	for i, s := range replySeeds {
		f.Add(s, uint8(i), uint8(i/3))
	}
	f.Add(`order_imaging {"modality":"ct","region":"head"}`, benchOf("klinike"), uint8(2))
	f.Add(`order_imaging {"modality":`, benchOf("klinike"), uint8(2))
	f.Add(`record_diagnosis {"diagnosis":["x"],"rationale":7}`, benchOf("klinike"), uint8(5))
	f.Add(`{"answer":"Two weeks.","revealed_fact_ids":["no-such-fact"],"beyond_record":true}`, benchOf("sdbench"), uint8(0))
	f.Add(`{"result":"","answer":" "}`, benchOf("sdbench"), uint8(0))
	srv := newFuzzServer(f)
	lib := corpus.NewLibrary(set)
	cases := map[string]clinic.Case{}
	for _, n := range names {
		cases[n] = firstCase(lib, n)
	}
	formats := []string{"json", "tags", "tools"}
	f.Fuzz(func(t *testing.T, reply string, which, format uint8) {
		// Format 2 and 5 (tools): the reply is a function call; 2 as text.
		srv.answer(reply, format%6 == 5)
		name := names[int(which)%len(names)]
		s := settings.Default()
		s.Benchmark = name
		b, err := set.Of(s)
		if err != nil {
			t.Fatal(err)
		}
		doctor := srv.Client(t, "doctor", func(r *settings.Role) { r.Format = formats[int(format)%len(formats)] })
		roles := runner.BuiltinRoles()
		roles.Doctor = llm.DoctorFor(b, doctor)
		roles.Judge = llm.JudgeFor(b, llm.Judge{C: srv.Client(t, "judge", nil)}, s)
		roles.Env.Extra = modelRoles(t, srv, b)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err = runner.Play(ctx, cases[name], runner.Deps{Bench: b, Roles: roles, Settings: s}, runner.Meta{RunID: "fz", EpisodeID: "fz/1", Number: 1})
		if ctx.Err() != nil {
			t.Fatalf("benchmark %s hung on %q: %v", name, reply, err)
		}
	})
}

// firstCase is the first case of a benchmark's built-in corpus, or of the
// shared synthetic stream for one without its own.
func firstCase(lib corpus.Library, name string) clinic.Case {
	splits, order, err := lib.BenchSplits(name, synth.V2, 7)
	if err != nil || len(order) == 0 {
		return synth.Generate(7)["stream"][0]
	}
	return splits[order[0]][0]
}

// modelRoles are the model forms of the roles b adds, on the fuzz server, as
// the engine builds them (episode.Roles.Extra); nil for a benchmark without.
func modelRoles(t *testing.T, srv *fuzzServer, b bench.Benchmark) map[string]any {
	rs, ok := b.(bench.Roles)
	if !ok {
		return nil
	}
	mk, ok := b.(llm.RoleMaker)
	if !ok {
		t.Fatalf("benchmark %s adds roles and has no model form of them", b.Name())
	}
	out := map[string]any{}
	for _, name := range rs.Roles() {
		r, err := mk.ModelRole(name, srv.Client(t, name, nil))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = r
	}
	return out
}
