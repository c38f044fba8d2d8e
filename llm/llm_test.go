package llm_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/clinevo/clinevo/benchmarks/medevoeval"
	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/fault"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

func client(t *testing.T, srv *llmtest.Server, role string, mod func(*settings.Role)) *llm.Client {
	return srv.Client(t, role, mod)
}

func view() clinic.DoctorView {
	return clinic.DoctorView{OpeningComplaint: "My head hurts.", Demographics: clinic.Demographics{Text: "30-year-old woman"}, MaxTurns: 10, MaxTests: 3, Catalog: []string{"ecg"},
		Actions: []string{"ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE"}, FinalFields: []string{"diagnosis", "evidence", "plan", "followup"}}
}

func TestRepairPolicy(t *testing.T) {
	const finalize = `"diagnosis":["Migraine"],"evidence":["headache"],"plan":["rest"],"followup":["review"]`
	tests := []struct {
		name     string
		replies  []string
		llmError bool
		calls    int
		action   clinic.ActionKind
		question string
		extra    int
	}{
		{"valid first time", nil, false, 1, clinic.Ask, "", 0},
		{"unknown fields are ignored and counted, no repair", []string{`{"action":"ASK","question":"q","confidence":0.7,"meta":{"model":"x"}}`}, false, 1, clinic.Ask, "q", 2},
		{"a lower-case action", []string{`{"action":"request_test","test_name":"ecg"}`}, false, 1, clinic.RequestTest, "", 0},
		{"an action in mixed case with spaces", []string{`{"action":" Finalize ",` + finalize + `}`}, false, 1, clinic.Finalize, "", 0},
		{"prose and a code fence around the object", []string{"Here is my next step:\n```json\n{\"action\":\"ASK\",\"question\":\"q\"}\n```\nI hope this helps {smile}."}, false, 1, clinic.Ask, "q", 0},
		{"braces in prose and inside strings", []string{`I will ask {politely}: {"action":"ASK","question":"Is it like a band {or a} \"vice}\" around your head?"} {"action":"FINALIZE"}`}, false, 1, clinic.Ask, `Is it like a band {or a} "vice}" around your head?`, 0},
		{"malformed JSON, then valid", []string{"Sure! {not json"}, false, 2, clinic.Ask, "", 0},
		{"a reply cut off before its closing brace, then valid", []string{`{"action":"ASK","question":"When did`}, false, 2, clinic.Ask, "", 0},
		{"an action outside the set, then valid", []string{`{"action":"DANCE"}`}, false, 2, clinic.Ask, "", 0},
		{"a missing required field, then valid", []string{`{"action":"ask"}`}, false, 2, clinic.Ask, "", 0},
		{"nothing of the rejected reply survives into the repaired one", []string{`{"action":"FINALIZE","diagnosis":["x"],"evidence":["y"]}`, `{"action":"FINALIZE","plan":["p"],"followup":["f"]}`}, true, 2, "", "", 0},
		{"malformed twice: an llm_error turn", []string{"no", `{"action":"ASK"}`}, true, 2, "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
				if n < len(tc.replies) {
					return &llmtest.Reply{Status: 200, Content: tc.replies[n]}
				}
				return nil
			}
			var tally llm.Tally
			ctx := llm.WithMeter(context.Background(), &tally)
			dec, err := llm.Doctor{C: client(t, srv, "doctor", nil)}.Decide(ctx, view())
			require.NoError(t, err)
			require.Equal(t, tc.llmError, dec.LLMError)
			reqs := srv.Requests()
			require.Len(t, reqs, tc.calls, "one repair request at most")
			if tc.calls == 2 {
				require.Contains(t, reqs[1].User, "could not be used", "the repair request says what was wrong")
			}
			require.Equal(t, tc.action, dec.Output.Action)
			if tc.question != "" {
				require.Equal(t, tc.question, dec.Output.Question)
			}
			require.Equal(t, tc.extra, tally.ByRole()["doctor"].ExtraFields)
		})
	}
}

// TestEveryRoleReadsRealReplies sends every model role a reply the way real
// chat models write them (extra fields, enums in another case, prose around the
// JSON): each is used as it is, without a repair request, and the unknown
// fields are counted per role.
func TestEveryRoleReadsRealReplies(t *testing.T) {
	c := synth.Generate(7)["stream"][0]
	events := []clinic.Event{{Turn: 0, Action: clinic.Ask, Question: "q", Status: clinic.StatusReturned, Reply: "a"},
		{Turn: 1, Action: clinic.Finalize, Status: clinic.StatusFinalized}}
	tests := []struct {
		role  string
		reply string
		extra int
		call  func(t *testing.T, ctx context.Context, cl *llm.Client)
	}{
		{"patient", `Sure. {"answer":"A few days.","revealed_fact_ids":["f1"],"unanswered_reason":"NONE","tone":"calm"}`, 1,
			func(t *testing.T, ctx context.Context, cl *llm.Client) {
				rep, err := llm.Patient{C: cl}.Answer(ctx, episode.PatientQuery{View: c.Patient, Question: "When did it start?"})
				require.NoError(t, err)
				require.False(t, rep.LLMError)
				require.Equal(t, episode.AnsweredNone, rep.Unanswered)
				require.Equal(t, []string{"f1"}, rep.FactIDs)
			}},
		{"exam", "```json\n{\"match\":\" Alias\",\"item\":\"ecg\",\"confidence\":0.9}\n```", 1,
			func(t *testing.T, ctx context.Context, cl *llm.Client) {
				it, m, err := llm.Exam{C: cl}.Resolve(ctx, "heart tracing", catalog.Default())
				require.NoError(t, err)
				require.Equal(t, catalog.MatchAlias, m)
				require.Equal(t, "ecg", it.Name)
			}},
		{"consultant", `{"advice":"Ask about fever.","next_action":"ask","question":"Any fever?","urgency":"low","refs":[]}`, 2,
			func(t *testing.T, ctx context.Context, cl *llm.Client) {
				note, err := llm.Consultant{C: cl}.Advise(ctx, view(), "what next?")
				require.NoError(t, err)
				require.Equal(t, "Consultant: Ask about fever. Suggested question: Any fever?", note)
			}},
		{"judge", `{"diagnosis_grade":0.75,"matched_evidence":[],"hallucinated_evidence":[],"matched_plan":[],"unsafe_plan":[],"reasoning":"close"}`, 1,
			func(t *testing.T, ctx context.Context, cl *llm.Client) {
				j, err := llm.Judge{C: cl}.Judge(ctx, &c, "revealed", clinic.FinalOutput{Diagnosis: []string{"x"}})
				require.NoError(t, err)
				require.Equal(t, 0.75, j.Diagnosis)
			}},
		{"grader", `{"labels":[{"turn":0,"label":"high_yield","rationale":"useful","score":3},{"turn":1,"label":" Low_Yield ","rationale":"ok"}],"summary":"fine"}`, 1,
			func(t *testing.T, ctx context.Context, cl *llm.Client) {
				pg, err := llm.ProcessGrader{C: cl}.GradeProcess(ctx, grader.ProcessInput{Events: events}, nil)
				require.NoError(t, err)
				require.Equal(t, grader.HighYield, pg.Actions[0].Label)
				require.Equal(t, grader.LowYield, pg.Actions[1].Label)
				require.Equal(t, map[grader.Label]int{grader.HighYield: 1, grader.LowYield: 1}, pg.Counts)
			}},
		{"evolver", `{"edits":[{"op":"ADD","text":"ASK triggers WHEN headache: they separate the common headaches","why":"x"}],"cards":[{"kind":"Correction","text":"IF headache AVOID guessing","priority":1}],"notes":"n"}`, 3,
			func(t *testing.T, ctx context.Context, cl *llm.Client) {
				out, err := llm.Evolver{C: cl}.Evolve(ctx, settings.Default().Evolver, evolver.Input{Run: "r", CaseID: "c1", Episode: 1, Pass: 1, Stage: 1, WriteCards: true}, nil, nil)
				require.NoError(t, err)
				require.Empty(t, out.Skipped)
				require.Len(t, out.Rules, 1)
				require.Len(t, out.Cards, 1)
				require.Equal(t, clinic.CardCorrection, out.Cards[0].Kind)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.role, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(int, llmtest.Request) *llmtest.Reply { return &llmtest.Reply{Status: 200, Content: tc.reply} }
			var tally llm.Tally
			ctx := llm.WithMeter(context.Background(), &tally)
			tc.call(t, ctx, client(t, srv, tc.role, nil))
			require.Len(t, srv.Requests(), 1, "no repair request")
			u := tally.ByRole()
			require.Equal(t, tc.extra, u[tc.role].ExtraFields)
			require.Equal(t, 1, u[tc.role].Calls)
			require.NotContains(t, u, tc.role+"_fallback")
		})
	}
}

// TestModelDoctorPlaysRealReplies plays an episode with a doctor that answers
// as chat models do: an extra field in every reply and lower-case actions. It
// plays normally: no repair request, no llm_error turn, no unparseable turn.
func TestModelDoctorPlaysRealReplies(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(n int, r llmtest.Request) *llmtest.Reply {
		if r.Role != "doctor" {
			return nil
		}
		if n < 3 {
			return &llmtest.Reply{Status: 200, Content: `{"action":"ask","question":"When did it start and what makes it worse?","confidence":0.7}`}
		}
		return &llmtest.Reply{Status: 200, Content: `{"action":"finalize","confidence":0.7,"diagnosis":["Migraine"],"evidence":["headache"],"plan":["simple analgesia"],"followup":["review in two weeks"]}`}
	}
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	roles := runner.BuiltinRoles()
	roles.Doctor = llm.Doctor{C: client(t, srv, "doctor", nil)}
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: roles, Settings: settings.Default()}
	tr, err := runner.Play(ctx, synth.Generate(7)["stream"][0], d, runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
	require.NoError(t, err)
	require.Empty(t, tr.LLMErrorTurns)
	require.Equal(t, clinic.EndFinalized, tr.Termination)
	require.Len(t, tr.Events, 4)
	for _, ev := range tr.Events {
		require.NotEqual(t, clinic.StatusUnparseable, ev.Status)
	}
	for _, r := range srv.Requests() {
		require.NotContains(t, r.User, "could not be used", "no repair request")
	}
	require.Len(t, srv.Requests(), 4)
	require.Equal(t, 4, tally.ByRole()["doctor"].ExtraFields, "one extra field in each of four replies")
}

// TestPromptTextIsAClientOption checks that prompt text reaches a model-call
// span only from a client built with RecordPrompts, whatever other clients do.
func TestPromptTextIsAClientOption(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(noop.NewTracerProvider()) })
	srv := llmtest.New(t)
	s := settings.Role{BaseURL: srv.BaseURL(), Model: "m"}
	quiet, err := llm.NewClient("doctor", s, llm.Options{})
	require.NoError(t, err)
	loud, err := llm.NewClient("doctor", s, llm.Options{RecordPrompts: true})
	require.NoError(t, err)
	for _, c := range []*llm.Client{quiet, loud, quiet} {
		_, err := llm.Doctor{C: c}.Decide(context.Background(), view())
		require.NoError(t, err)
	}
	require.NoError(t, tp.ForceFlush(context.Background()))
	var prompts []bool
	for _, sp := range rec.Ended() {
		if sp.Name() != "llm.chat" {
			continue
		}
		has := false
		for _, a := range sp.Attributes() {
			if a.Key == "llm.prompt" {
				has = true
				require.Contains(t, a.Value.AsString(), "My head hurts.")
			}
		}
		prompts = append(prompts, has)
	}
	require.Equal(t, []bool{false, true, false}, prompts)
}

func TestErrorClassification(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.Reply
		class      fault.Class
		retryAfter time.Duration
		fix        string // what the message says to fix (permanent classes)
	}{
		{"429 honours Retry-After", llmtest.Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "7"}}, fault.RateLimited, 7 * time.Second, ""},
		{"500 is a server error", llmtest.Reply{Status: 500, Content: "boom"}, fault.ServerError, 0, ""},
		{"503 is a server error", llmtest.Reply{Status: 503, Content: "overloaded"}, fault.ServerError, 0, ""},
		{"a slow reply times out", llmtest.Reply{Status: 200, Content: "{}", Delay: 1500 * time.Millisecond}, fault.Timeout, 0, ""},
		{"400 is invalid", llmtest.Reply{Status: 400, Content: "bad request"}, fault.Invalid, 0, `check roles.doctor.model ("test-model") and roles.doctor.base_url`},
		{"404 is invalid", llmtest.Reply{Status: 404, Content: "no such model"}, fault.Invalid, 0, `check roles.doctor.model ("test-model")`},
		{"401 is a refused key", llmtest.Reply{Status: 401, Content: "invalid api key"}, fault.Unauthorized, 0, "roles.doctor sent no key"},
		{"403 is a refused key", llmtest.Reply{Status: 403, Content: "forbidden"}, fault.Unauthorized, 0, "roles.doctor sent no key"},
		{"context length is invalid", llmtest.Reply{Status: 400, Content: "This model's maximum context length is 8192 tokens"}, fault.Invalid, 0, "choose a model with a longer context (roles.doctor.model)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(int, llmtest.Request) *llmtest.Reply { r := tc.reply; return &r }
			c := client(t, srv, "doctor", func(s *settings.Role) { s.Timeout = settings.Duration(time.Second) })
			_, err := llm.Doctor{C: c}.Decide(context.Background(), view())
			var e *llm.Error
			require.True(t, errors.As(err, &e), "got %v", err)
			f := fault.Of(err)
			require.Equal(t, tc.class, f.Class, err.Error())
			require.Equal(t, "model roles.doctor", f.Dependency)
			require.Equal(t, tc.retryAfter, f.RetryAfter)
			require.Equal(t, tc.fix != "", !f.Class.Transient())
			require.ErrorContains(t, err, tc.fix)
			require.Len(t, srv.Requests(), 1, "the client itself never retries")
		})
	}
	t.Run("a refused connection is unavailable", func(t *testing.T) {
		srv := llmtest.New(t)
		c := client(t, srv, "doctor", nil)
		srv.Close()
		_, err := llm.Doctor{C: c}.Decide(context.Background(), view())
		f := fault.Of(err)
		require.Equal(t, fault.Unavailable, f.Class, "%v", err)
		require.Equal(t, "model roles.doctor", f.Dependency)
	})
}

// TestWrongKey checks the fake server's key check as a client sees it: the
// right key is served, a wrong or missing one is a fatal 401 naming the
// endpoint's message, and a key revoked between two calls fails the second.
func TestWrongKey(t *testing.T) {
	srv := llmtest.New(t)
	srv.SetKey("right-key")
	for _, tc := range []struct {
		name, key string
		ok        bool
	}{{"right", "right-key", true}, {"wrong", "wrong-key", false}, {"missing", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CLINEVO_LLMTEST_KEY", tc.key)
			c := client(t, srv, "doctor", func(s *settings.Role) { s.APIKeyEnv = "CLINEVO_LLMTEST_KEY" })
			_, err := llm.Doctor{C: c}.Decide(context.Background(), view())
			if tc.ok {
				require.NoError(t, err)
				return
			}
			var e *llm.Error
			require.True(t, errors.As(err, &e), "got %v", err)
			require.Equal(t, fault.Unauthorized, fault.Of(err).Class)
			require.Equal(t, 401, e.Status)
			require.ErrorContains(t, err, "Incorrect API key provided.")
			if tc.key == "" {
				require.ErrorContains(t, err, "roles.doctor sent no key: set $CLINEVO_LLMTEST_KEY (roles.doctor.api_key_env) to a valid key on every worker")
				return
			}
			require.ErrorContains(t, err, "the endpoint refused the key of roles.doctor in $CLINEVO_LLMTEST_KEY (roles.doctor.api_key_env): set a valid key there")
			require.NotContains(t, err.Error(), tc.key, "the message names the variable, never the key")
		})
	}
	t.Setenv("CLINEVO_LLMTEST_KEY", "right-key")
	c := client(t, srv, "doctor", func(s *settings.Role) { s.APIKeyEnv = "CLINEVO_LLMTEST_KEY" })
	_, err := llm.Doctor{C: c}.Decide(context.Background(), view())
	require.NoError(t, err)
	srv.SetKey("rotated-key")
	_, err = llm.Doctor{C: c}.Decide(context.Background(), view())
	require.ErrorContains(t, err, "401")
}

func TestTokenAccountingAndCache(t *testing.T) {
	srv := llmtest.New(t)
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	_, err := llm.Doctor{C: client(t, srv, "doctor", nil)}.Decide(ctx, view())
	require.NoError(t, err)
	u := tally.ByRole()["doctor"]
	require.Equal(t, 1, u.Calls)
	require.Positive(t, u.PromptTokens)
	require.Positive(t, u.CompletionTokens)
	require.InDelta(t, float64(u.PromptTokens)*1/1e6+float64(u.CompletionTokens)*2/1e6, u.CostUSD, 1e-12)

	// Temperature-0 calls of a caching role are answered from the cache the second time.
	cache := &memCache{m: map[string]string{}}
	jc, err := llm.NewClient("judge", settings.Role{BaseURL: srv.BaseURL(), Model: "m", Cache: true}, llm.Options{Cache: cache})
	require.NoError(t, err)
	c := synth.Generate(7)["stream"][0]
	j := llm.Judge{C: jc}
	before := len(srv.Requests())
	for range 2 {
		_, err := j.Judge(ctx, &c, "revealed", clinic.FinalOutput{Diagnosis: []string{"x"}})
		require.NoError(t, err)
	}
	require.Len(t, srv.Requests(), before+1)
	require.Equal(t, 1, tally.ByRole()["judge"].CacheHits)

	// Epoch 2 of a held-out case has its own replies: the first call of
	// it asks the model, the second is a hit; epoch 1 keeps the keys
	// calls without an epoch had (the first call above).
	for _, epoch := range []int{2, 2, 1} {
		_, err := j.Judge(llm.WithEpoch(ctx, epoch), &c, "revealed", clinic.FinalOutput{Diagnosis: []string{"x"}})
		require.NoError(t, err)
	}
	require.Len(t, srv.Requests(), before+2, "only epoch 2's first call reaches the model")
	require.Equal(t, 3, tally.ByRole()["judge"].CacheHits)
	require.Len(t, cache.m, 2, "one reply per epoch")
}

// memCache is an llm.Cache in a map, with the stores' semantics: the first
// reply put stays, and Drop removes an entry only if it holds the stale reply.
type memCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *memCache) Get(_ context.Context, k string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *memCache) Put(_ context.Context, k, v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok {
		c.m[k] = v
	}
}

func (c *memCache) Drop(_ context.Context, k, stale string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[k] == stale {
		delete(c.m, k)
	}
}

// TestCacheHoldsOnlyValidReplies: a judge reply the judge's parser rejects
// ({"grade": 120}) is not cached, so a second episode asks the model again
// instead of replaying it; a cached entry that no longer parses (stored by an
// older clinevo) is ignored and replaced by the model's valid reply.
func TestCacheHoldsOnlyValidReplies(t *testing.T) {
	srv := llmtest.New(t)
	var grade atomic.Int64
	grade.Store(120)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: fmt.Sprintf(`{"grade": %d, "justification": "j"}`, grade.Load())}
	}
	cache := &memCache{m: map[string]string{}}
	jc, err := llm.NewClient("judge", settings.Role{BaseURL: srv.BaseURL(), Model: "m", Cache: true}, llm.Options{Cache: cache})
	require.NoError(t, err)
	j := llm.Judge{C: jc, Fallback: grader.RubricJudge{W: settings.Default().Scoring}}
	c := synth.Generate(7)["stream"][0]
	var tally llm.Tally
	ctx := llm.WithMeter(context.Background(), &tally)
	for range 2 {
		_, err := j.JudgeDiagnosis(ctx, &c, []string{"x"})
		require.NoError(t, err, "a malformed grade falls back to the rubric")
	}
	require.Len(t, srv.Requests(), 4, "each episode asked the model twice (the reply and its repair): nothing malformed was cached")
	require.Empty(t, cache.m)
	require.Zero(t, tally.ByRole()["judge"].CacheHits)

	// An entry stored before replies were validated: ignored and replaced.
	grade.Store(70)
	for k := range cache.m {
		delete(cache.m, k)
	}
	_, err = j.JudgeDiagnosis(ctx, &c, []string{"x"})
	require.NoError(t, err)
	require.Len(t, cache.m, 1, "a valid reply is cached")
	var key string
	for k := range cache.m {
		key = k
	}
	cache.m[key] = `{"grade": 120}`
	before := len(srv.Requests())
	g, err := j.JudgeDiagnosis(ctx, &c, []string{"x"})
	require.NoError(t, err)
	require.Equal(t, 70, g.Grade, "the model's grade, not the stale entry")
	require.Len(t, srv.Requests(), before+1, "the stale entry sent the call to the model")
	require.Equal(t, `{"grade": 70, "justification": "j"}`, cache.m[key], "and was replaced")
	g, err = j.JudgeDiagnosis(ctx, &c, []string{"x"})
	require.NoError(t, err)
	require.Equal(t, 70, g.Grade)
	require.Len(t, srv.Requests(), before+1, "answered from the cache")
	require.Equal(t, 1, tally.ByRole()["judge"].CacheHits)
}

// TestLLMErrorTurns plays an episode with a doctor whose replies never parse:
// every turn is an llm_error turn and the episode ends at the turn limit.
func TestLLMErrorTurns(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: "I think it is a migraine."}
	}
	set := settings.Default()
	set.Episode.MaxTurns = 3
	roles := runner.BuiltinRoles()
	roles.Doctor = llm.Doctor{C: client(t, srv, "doctor", nil)}
	d := runner.Deps{Bench: medevoeval.Benchmark{}, Roles: roles, Settings: set}
	tr, err := runner.Play(context.Background(), synth.Generate(7)["stream"][0], d, runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2}, tr.LLMErrorTurns)
	require.Equal(t, clinic.EndTurnLimit, tr.Termination)
	for _, ev := range tr.Events {
		require.Equal(t, clinic.StatusUnparseable, ev.Status)
	}
	require.Len(t, srv.Requests(), 6, "each turn: one request and one repair")
}

func TestModelPatientAndExam(t *testing.T) {
	srv := llmtest.New(t)
	c := synth.Generate(7)["stream"][0]
	rep, err := llm.Patient{C: client(t, srv, "patient", nil)}.Answer(context.Background(), episode.PatientQuery{View: c.Patient, Question: "When did it start?"})
	require.NoError(t, err)
	require.Equal(t, []string{"f1"}, rep.FactIDs)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"answer":"yes","revealed_fact_ids":["f99"],"unanswered_reason":"none"}`}
	}
	rep, err = llm.Patient{C: client(t, srv, "patient", nil)}.Answer(context.Background(), episode.PatientQuery{View: c.Patient, Question: "Anything else?"})
	require.NoError(t, err)
	require.True(t, rep.LLMError, "an invented fact ID is rejected, and after the repair the turn is an llm error")
	require.Empty(t, rep.FactIDs)
}

func TestEmbedderDimensionMismatch(t *testing.T) {
	srv := llmtest.New(t)
	srv.Dim = 16
	e := llm.Embedder{C: client(t, srv, "embeddings", func(s *settings.Role) { s.Dim = 32 })}
	_, err := e.Embed(context.Background(), []string{"hello"})
	var le *llm.Error
	require.True(t, errors.As(err, &le))
	require.Equal(t, fault.Schema, fault.Of(err).Class)
	require.Contains(t, err.Error(), "returned 16 dimensions")
	require.Contains(t, err.Error(), "set roles.embeddings.dim to 16")
}

// TestConcurrencyLimit: with roles.<name>.concurrency 1, a call waits while
// another is in flight; cancelled while it waits, it never reaches the endpoint.
// With 2, the second call is sent while the first is still in flight.
// TestConcurrencyLimit: with concurrency 1 a second call waits for the slot
// and reaches the server only once the first has returned; a waiting call
// whose context ends returns without being sent; with concurrency 2 both
// calls are at the server at once.
func TestConcurrencyLimit(t *testing.T) {
	// The server numbers requests from 0 and holds each until free is
	// called (also at cleanup, so that a failed check cannot hang the server).
	setup := func(t *testing.T, limit int) (srv *llmtest.Server, c *llm.Client, arrived chan int, free func(), call func(context.Context) error) {
		srv = llmtest.New(t)
		arrived = make(chan int, 4)
		release := make(chan struct{})
		free = sync.OnceFunc(func() { close(release) })
		t.Cleanup(free)
		srv.Script = func(n int, _ llmtest.Request) *llmtest.Reply {
			arrived <- n
			<-release
			return &llmtest.Reply{Status: 200, Content: `{"grade":50,"justification":"x"}`}
		}
		c = client(t, srv, "judge", func(s *settings.Role) { s.Concurrency = limit })
		call = func(ctx context.Context) error {
			var out struct{ Grade int }
			return c.JSON(ctx, []llm.Message{llm.User("grade")}, &out, func() error { return nil })
		}
		return srv, c, arrived, free, call
	}
	// untilWaiting returns once a call of c waits for a slot, and fails if a
	// request reaches the server instead.
	untilWaiting := func(t *testing.T, c *llm.Client, arrived chan int) {
		for llm.Waiting(c) == 0 {
			select {
			case n := <-arrived:
				t.Fatalf("request %d was sent while the first held the only slot", n)
			default:
				runtime.Gosched()
			}
		}
	}
	t.Run("1", func(t *testing.T) {
		srv, c, arrived, free, call := setup(t, 1)
		first := make(chan error, 1)
		go func() { first <- call(context.Background()) }()
		require.Equal(t, 0, <-arrived)
		second := make(chan error, 1)
		go func() { second <- call(context.Background()) }()
		untilWaiting(t, c, arrived)
		require.Len(t, srv.Requests(), 1)
		free()
		require.NoError(t, <-first)
		require.Equal(t, 1, <-arrived, "the second call goes once the slot is free")
		require.NoError(t, <-second)
	})
	t.Run("1, cancelled while waiting", func(t *testing.T) {
		srv, c, arrived, free, call := setup(t, 1)
		first := make(chan error, 1)
		go func() { first <- call(context.Background()) }()
		<-arrived
		ctx, cancel := context.WithCancel(context.Background())
		second := make(chan error, 1)
		go func() { second <- call(ctx) }()
		untilWaiting(t, c, arrived)
		cancel()
		require.ErrorContains(t, <-second, "context canceled")
		require.Zero(t, llm.Waiting(c))
		free()
		require.NoError(t, <-first)
		require.Len(t, srv.Requests(), 1, "the cancelled call was never sent")
	})
	t.Run("2", func(t *testing.T) {
		_, _, arrived, free, call := setup(t, 2)
		first, second := make(chan error, 1), make(chan error, 1)
		go func() { first <- call(context.Background()) }()
		go func() { second <- call(context.Background()) }()
		<-arrived
		<-arrived // both in flight at once
		free()
		require.NoError(t, <-first)
		require.NoError(t, <-second)
	})
}

// TestModelEvolverKeepsMemoryEntries: under EvoClinician's settings a model
// evolver's output holds the memory entries of the graded turns (which need no
// model) beside the model's own card.
func TestModelEvolverKeepsMemoryEntries(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"edits":[],"cards":[{"kind":"correction","text":"IF tight chest THEN ask what brings it on"}]}`}
	}
	cfg := settings.Default().Evolver
	cfg.Mode, cfg.CardKinds = settings.ScoreOnly, []string{"advice", "correction"}
	in := evolver.Input{Run: "r", Pass: 1, Stage: 1, Episode: 2, CaseID: "c2", Opening: "Tight chest when I walk uphill", WriteCards: true,
		Events: []clinic.Event{
			{Turn: 0, Action: clinic.Ask, Question: "What brings it on?", Topic: clinic.TopicTriggers, Status: clinic.StatusReturned, Reply: "Stairs.", RevealedFacts: []string{"f1"}},
			{Turn: 1, Action: clinic.Finalize, Status: clinic.StatusFinalized, Final: &clinic.FinalOutput{Diagnosis: []string{"angina"}}},
		},
		Final: clinic.FinalOutput{Diagnosis: []string{"angina"}}, Outcome: grader.Outcome{S: 0.8, Pass: true, Cost: 10},
		Grade: grader.ProcessGrade{Actions: []grader.ActionGrade{{Turn: 0, Action: clinic.Ask, Label: grader.HighYield, Rationale: "told the trigger"},
			{Turn: 1, Action: clinic.Finalize, Label: grader.LowYield}}}}
	out, err := llm.Evolver{C: client(t, srv, "evolver", nil)}.Evolve(context.Background(), cfg, in, nil, nil)
	require.NoError(t, err)
	kinds := map[clinic.CardKind]int{}
	for _, c := range out.Cards {
		kinds[c.Kind]++
	}
	require.Equal(t, map[clinic.CardKind]int{clinic.CardCorrection: 1, clinic.CardAdvice: 1}, kinds, "the model's card and the HIGH_YIELD question's entry")
	require.Equal(t, evolver.KeepKinds(evolver.Records(cfg, in), cfg.CardKinds), out.Cards[1:])
}

// TestPatientPromptHasThePersona checks that the model patient's prompt
// describes the persona on GPAgentBench's four dimensions (§4.1).
func TestPatientPromptHasThePersona(t *testing.T) {
	cp, err := corpus.Library{}.Load("builtin:stream@7")
	require.NoError(t, err)
	c := cp.Cases[0]
	c.Patient.Persona = clinic.Persona{Personality: "minimising", Language: "basic", Recall: "low", Disorientation: "high"}
	msgs, err := llm.Render("patient", episode.PatientQuery{View: c.Patient}, episode.PatientQuery{View: c.Patient, Question: "q"})
	require.NoError(t, err)
	system := msgs[0].Content
	for _, want := range []string{"Personality: pleasing", "Language proficiency: basic", "Anamnestic fidelity: low", "Disorientation: high"} {
		require.Contains(t, system, want)
	}
	c.Patient.Persona = clinic.Persona{Personality: "anxious", Language: "fluent", Recall: "medium", Clarity: "confused"}
	msgs, err = llm.Render("patient", episode.PatientQuery{View: c.Patient}, episode.PatientQuery{View: c.Patient, Question: "q"})
	require.NoError(t, err)
	for _, want := range []string{"Personality: overanxious", "Language proficiency: advanced", "Anamnestic fidelity: high", "Disorientation: moderate"} {
		require.Contains(t, msgs[0].Content, want, "an older corpus's persona read on the paper's dimensions")
	}
}

// TestDoctorMayChooseToRefine: the model doctor is told of ReMem's refine
// only where its view offers it, and a refine it asks for where it is not
// offered is dropped.
func TestDoctorMayChooseToRefine(t *testing.T) {
	v := view()
	msgs, err := llm.DoctorPrompt(v)
	require.NoError(t, err)
	require.NotContains(t, msgs[0].Content, `"refine"`)
	v.MayRefine = true
	msgs, err = llm.DoctorPrompt(v)
	require.NoError(t, err)
	require.Contains(t, msgs[0].Content, `"refine": false`)
	require.Contains(t, msgs[0].Content, "think, act, or refine")

	srv := llmtest.New(t)
	srv.Script = func(int, llmtest.Request) *llmtest.Reply {
		return &llmtest.Reply{Status: 200, Content: `{"action":"ASK","question":"Any fever?","utterance":"Any fever?","refine":true}`}
	}
	doc := llm.Doctor{C: client(t, srv, "doctor", nil)}
	for _, offered := range []bool{true, false} {
		v.MayRefine = offered
		dec, err := doc.Decide(context.Background(), v)
		require.NoError(t, err)
		require.Equal(t, offered, dec.Output.Refine, "offered %v", offered)
	}
}
