package clinic

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// gpFields stands for a benchmark's own event fields.
type gpFields struct {
	Target  string  `json:"site,omitempty"`
	Penalty float64 `json:"charge,omitempty"`
}

func TestExtRoundTripKeepsOneFlatObject(t *testing.T) {
	ev := Event{Turn: 2, Action: Ask, Status: StatusReturned, Reply: "a <b> & c"}
	var err error
	ev.Ext, err = ev.Ext.Put(gpFields{Target: "abdomen", Penalty: 5})
	require.NoError(t, err)

	b, err := json.Marshal(ev)
	require.NoError(t, err)
	var flat map[string]any
	require.NoError(t, json.Unmarshal(b, &flat))
	require.Equal(t, "abdomen", flat["site"], "the extension is written as members of the event itself")
	require.Equal(t, 5.0, flat["charge"])
	require.Equal(t, "a <b> & c", flat["reply"])

	var back Event
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, ev, back)
	var f gpFields
	require.NoError(t, back.Ext.Decode(&f))
	require.Equal(t, gpFields{Target: "abdomen", Penalty: 5}, f)
}

func TestExtPutClearsOmittedMembers(t *testing.T) {
	x, err := Ext(nil).Put(gpFields{Target: "abdomen", Penalty: 5})
	require.NoError(t, err)
	x, err = x.Put(gpFields{Target: "chest"})
	require.NoError(t, err)
	require.Equal(t, []string{"site"}, x.Keys(), "the charge at its zero value is gone")
	x, err = x.Put(gpFields{})
	require.NoError(t, err)
	require.Nil(t, x)
}

func TestExtMustNotShadowSharedField(t *testing.T) {
	ev := Event{Ext: Ext{"reply": json.RawMessage(`"x"`)}}
	_, err := json.Marshal(ev)
	require.ErrorContains(t, err, `member "reply" shadows a field`)
}

func TestExtNoExtensionWritesTheSharedShape(t *testing.T) {
	type plain Event
	ev := Event{Turn: 1, Action: RequestTest, Test: "cbc", Status: StatusReturned, Reply: "Hb <10"}
	want, err := json.Marshal(plain(ev))
	require.NoError(t, err)
	got, err := json.Marshal(ev)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))

	// An encoder told not to escape HTML does not get escaped bytes back.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(ev))
	require.Contains(t, buf.String(), "Hb <10")
}

func TestExtCaseViewsReadUnknownMembers(t *testing.T) {
	var c Case
	require.NoError(t, json.Unmarshal([]byte(`{"id":"c1","exam_view":{"findings":[],"tests":[],"catalog":[],"chart":{"x":1}},"manager_view":{"diagnosis":{"display_name":"d"},"evidence_key_points":[],"management_key_points":[],"referral":null,"label":"manage"}}`), &c))
	require.Equal(t, []string{"chart"}, c.Exam.Ext.Keys())
	require.Equal(t, []string{"label"}, c.Manager.Ext.Keys())
	b, err := json.Marshal(c)
	require.NoError(t, err)
	require.Contains(t, string(b), `"chart":{"x":1}`)
	require.Contains(t, string(b), `"label":"manage"`)
}

// A member Put wrote keeps "<" and "&" as they are for an encoder told not
// to escape HTML, as the shared fields do.
func TestExtPutDoesNotEscapeHTML(t *testing.T) {
	x, err := Ext(nil).Put(gpFields{Target: "a < b & c"})
	require.NoError(t, err)
	ev := Event{Action: Ask, Ext: x}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(ev))
	require.Contains(t, buf.String(), `"site":"a < b & c"`)
}
