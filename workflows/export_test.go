package workflows

// StreamSpecOf is streamSpec, for the tests.
var StreamSpecOf = streamSpec
