package llm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/episode"
	"github.com/clinevo/clinevo/llm"
	"github.com/clinevo/clinevo/llm/llmtest"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
)

func client(t *testing.T, srv *llmtest.Server, role string, mod func(*settings.Role)) *llm.Client {
	t.Helper()
	s := settings.Role{BaseURL: srv.BaseURL(), Model: "test-model", JSONMode: true, Timeout: settings.Duration(2 * time.Second), PricePrompt: 1, PriceCompletion: 2}
	if mod != nil {
		mod(&s)
	}
	c, err := llm.NewClient(role, s, nil)
	require.NoError(t, err)
	return c
}

func view() clinic.DoctorView {
	return clinic.DoctorView{OpeningComplaint: "My head hurts.", Demographics: clinic.Demographics{Text: "30-year-old woman"}, MaxTurns: 10, MaxTests: 3, Catalog: []string{"ecg"},
		Actions: []string{"ASK", "REQUEST_TEST", "CALL_MDT", "FINALIZE"}, FinalFields: []string{"diagnosis", "evidence", "plan", "followup"}}
}

func TestRepairPolicy(t *testing.T) {
	tests := []struct {
		name     string
		replies  []string
		llmError bool
		calls    int
	}{
		{"valid first time", nil, false, 1},
		{"malformed JSON, then valid", []string{"Sure! {not json"}, false, 2},
		{"wrong schema, then valid", []string{`{"action":"DANCE"}`}, false, 2},
		{"unknown field, then valid", []string{`{"action":"ASK","question":"q","mood":"happy"}`}, false, 2},
		{"malformed twice: an llm_error turn", []string{"no", `{"action":"ASK"}`}, true, 2},
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
			dec, err := llm.Doctor{C: client(t, srv, "doctor", nil)}.Decide(context.Background(), view())
			require.NoError(t, err)
			require.Equal(t, tc.llmError, dec.LLMError)
			reqs := srv.Requests()
			require.Len(t, reqs, tc.calls, "one repair request at most")
			if tc.calls == 2 {
				require.Contains(t, reqs[1].User, "could not be used", "the repair request says what was wrong")
			}
			if !tc.llmError {
				require.Equal(t, clinic.Ask, dec.Output.Action)
			}
		})
	}
}

func TestErrorClassification(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.Reply
		kind       llm.Kind
		retryAfter time.Duration
	}{
		{"429 honours Retry-After", llmtest.Reply{Status: 429, Content: "slow down", Header: map[string]string{"Retry-After": "7"}}, llm.RateLimited, 7 * time.Second},
		{"500 is transient", llmtest.Reply{Status: 500, Content: "boom"}, llm.Transient, 0},
		{"503 is transient", llmtest.Reply{Status: 503, Content: "overloaded"}, llm.Transient, 0},
		{"a slow reply times out and is transient", llmtest.Reply{Status: 200, Content: "{}", Delay: 1500 * time.Millisecond}, llm.Transient, 0},
		{"400 is fatal", llmtest.Reply{Status: 400, Content: "bad request"}, llm.Fatal, 0},
		{"401 is fatal", llmtest.Reply{Status: 401, Content: "invalid api key"}, llm.Fatal, 0},
		{"context length is fatal", llmtest.Reply{Status: 400, Content: "This model's maximum context length is 8192 tokens"}, llm.Fatal, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Script = func(int, llmtest.Request) *llmtest.Reply { r := tc.reply; return &r }
			c := client(t, srv, "doctor", func(s *settings.Role) { s.Timeout = settings.Duration(time.Second) })
			_, err := llm.Doctor{C: c}.Decide(context.Background(), view())
			var e *llm.Error
			require.True(t, errors.As(err, &e), "got %v", err)
			require.Equal(t, tc.kind, e.Kind, e.Error())
			require.Equal(t, tc.retryAfter, e.RetryAfter)
			require.Len(t, srv.Requests(), 1, "the client itself never retries")
		})
	}
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
	jc, err := llm.NewClient("judge", settings.Role{BaseURL: srv.BaseURL(), Model: "m", Cache: true}, cache)
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
}

type memCache struct{ m map[string]string }

func (c *memCache) Get(_ context.Context, k string) (string, bool) { v, ok := c.m[k]; return v, ok }
func (c *memCache) Put(_ context.Context, k, v string)             { c.m[k] = v }

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
	d := runner.Deps{Roles: roles, Settings: set}
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
	require.Equal(t, llm.Fatal, le.Kind)
	require.Contains(t, err.Error(), "returned 16 dimensions")
}

// TestMedInquireDoctorSeesNoTestList plays Med-Inquire episodes with a model
// doctor on the fake endpoint: no prompt holds a list of tests (EvoClinician
// §3: the actor proposes tests by free text), while MedEvoEval's prompt does.
func TestMedInquireDoctorSeesNoTestList(t *testing.T) {
	srv := llmtest.New(t)
	c := synth.Generate(7)["stream"][0]
	for _, profile := range []string{settings.MedInquire, settings.MedEvoEval} {
		t.Run(profile, func(t *testing.T) {
			before := len(srv.Requests())
			set := settings.Default()
			set.Profile = profile
			roles := runner.BuiltinRoles()
			roles.Doctor = llm.Doctor{C: client(t, srv, "doctor", nil)}
			tr, err := runner.Play(context.Background(), c, runner.Deps{Roles: roles, Settings: set}, runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
			require.NoError(t, err)
			require.Equal(t, clinic.EndFinalized, tr.Termination)
			reqs := srv.Requests()[before:]
			require.NotEmpty(t, reqs)
			for _, r := range reqs {
				prompt := r.System + "\n" + r.User
				listed := strings.Contains(prompt, "Test catalog:") || strings.Contains(prompt, strings.Join(c.Exam.Catalog, ", "))
				require.Equal(t, profile == settings.MedEvoEval, listed, "prompt:\n%s", prompt)
				if profile == settings.MedInquire {
					require.NotContains(t, prompt, "CALL_MDT")
					require.Contains(t, prompt, "NOT AVAILABLE")
				}
			}
		})
	}
}
