package testutil

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaFile is the JSON Schema of the "tcptune" object of bench's and
// serve's -J documents, relative to the module's root.
const SchemaFile = "docs/json/tcptune.schema.json"

// CheckSchema validates v (decoded JSON, or any value that marshals to
// it) against the repository's schema at fragment ("" for the whole
// "tcptune" object, "/$defs/limit" for one definition).
func CheckSchema(t testing.TB, v any, fragment string) {
	t.Helper()
	s, err := jsonschema.NewCompiler().Compile(filepath.Join(ModuleRoot(), SchemaFile) + "#" + fragment)
	if err != nil {
		t.Fatalf("schema %s#%s: %v", SchemaFile, fragment, err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s#%s: %v\n%.2000s", SchemaFile, fragment, err, raw)
	}
}
