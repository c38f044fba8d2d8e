package gpagent_test

import (
	"strings"
	"testing"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
)

// FuzzParseTags reads any reply as GPAgentBench's tagged action format: no
// panic; an action it accepts is one the view allows.
func FuzzParseTags(f *testing.F) {
	for _, s := range []string{`<action type="ask">Where does it hurt?</action>`, `<action type="diagnose"><diagnosis>flu</diagnosis></action>`,
		`<action type="refer"><destination>ED</destination><urgency>urgent</urgency>`, `<think>` + strings.Repeat("<", 1000), `<action type="">`,
		`<action type="treat"><plan>a; b; c</plan>`, `<action type="refer"><urgency>whenever</urgency></action>`, "", "\x00<action"} {
		f.Add(s)
	}
	v := clinic.DoctorView{OpeningComplaint: "cough", MaxTurns: 10, Actions: []string{"ASK", "BODY_EXAM", "TEST", "DIAGNOSE", "TREAT", "REFER"}}
	f.Fuzz(func(t *testing.T, reply string) {
		out, _, err := gpagent.ParseTags(reply, v)
		if err != nil {
			return
		}
		if out.Action == "" {
			t.Fatalf("an accepted reply without an action: %q", reply)
		}
	})
}
