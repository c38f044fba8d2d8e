package gpagent

import (
	"context"
	"errors"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/llm"
)

var _ llm.FormatCheck = Benchmark{}

// CheckFormat is roles check's probe of the doctor's tagged reply format:
// one tiny request for an ask block, read by ParseTags, the parser the model
// doctor reads every tagged reply with. A doctor in the JSON format is the
// shared JSON probe's (nil: nothing of this benchmark's to check).
func (Benchmark) CheckFormat(ctx context.Context, c *llm.Client) error {
	if c.Settings.Format != llm.FormatTags {
		return llm.ErrNoOwnCheck
	}
	v := clinic.DoctorView{Actions: []string{string(clinic.Ask)}}
	msgs := []llm.Message{llm.System(llm.CheckPromptPrefix + " a connectivity check. Reply with exactly these three lines and nothing else:\n" +
		"<action type=\"ask\">\nquestion: check\n</action>"), llm.User("check")}
	return c.Exchange(ctx, msgs, func(reply string) error {
		out, _, err := ParseTags(reply, v)
		if err == nil && out.Question == "" {
			err = errors.New("the ask block holds no question")
		}
		return err
	}, TagsRepairPrompt)
}
