package arrowipc_test

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pqscan/pqscan/internal/decode/arrowipc"
)

// A decoder fills Arrays; WriteStream turns them into an IPC stream any Arrow reader accepts.
func ExampleWriteStream() {
	s := &arrowipc.Schema{Fields: []arrowipc.Field{
		{Name: "id", Type: arrowipc.DataType{ID: arrowipc.Int, BitWidth: 32, Signed: true}},
		{Name: "name", Type: arrowipc.DataType{ID: arrowipc.Utf8}, Nullable: true},
	}}
	ids := &arrowipc.Array{Len: 3, Data: []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0}}
	names := &arrowipc.Array{Len: 3, NullCount: 1, Validity: []byte{0b101},
		Offsets: []int32{0, 3, 3, 6}, Data: []byte("annbob")}

	stream, err := arrowipc.WriteStream(nil, s, 3, []*arrowipc.Array{ids, names})
	if err != nil {
		panic(err)
	}

	r, err := ipc.NewReader(bytes.NewReader(stream))
	if err != nil {
		panic(err)
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		fmt.Println(rec.Column(0), rec.Column(1))
	}
	// Output:
	// [1 2 3] ["ann" (null) "bob"]
}
