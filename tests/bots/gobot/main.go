// Command gobot is the smallest compiled Waraq bot: a gRPC server for
// waraq.v1.Bot (protocol/waraq/v1/bot.proto) that answers every Hokm
// decision with the first of the legal actions its request lists.
//
// It exists so the tests can show that a compiled, statically typed bot plays
// unchanged through the referee, its launcher and its sandbox; its strategy
// is deliberately none. It plays Hokm only: a Hand TURN lists no legal
// actions to pick from.
//
//	gobot --port N     listen on 127.0.0.1:N (0: any free port; the port is printed)
//	gobot --unix PATH  listen on a Unix socket at PATH
//
// Built by build.sh beside this file, from Debian's Go packages alone.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	pb "gobot/waraqv1"
)

const (
	name            = "gobot"
	version         = "1.0"
	protocolVersion = 1
	// How long SIGTERM waits for open Play streams before cutting them.
	stopGrace = time.Second
)

type bot struct {
	pb.UnimplementedBotServer
}

func (bot) Hello(_ context.Context, _ *pb.HelloRequest) (*pb.HelloReply, error) {
	return &pb.HelloReply{
		Name:            name,
		Version:         version,
		Author:          "Waraq tests",
		Games:           []*pb.GameSupport{{Game: "hokm", Players: []uint32{2, 3, 4}}},
		ProtocolVersion: protocolVersion,
	}, nil
}

// Play answers each decision in turn. A request is self-contained, so the
// stream keeps nothing but what it logs at the end.
func (bot) Play(stream pb.Bot_PlayServer) error {
	var start *pb.MatchStart
	for {
		message, err := stream.Recv()
		if err == io.EOF {
			return nil // the referee closed its side: the match is over or aborted
		}
		if err != nil {
			return err
		}
		switch body := message.Body.(type) {
		case *pb.RefereeMessage_Start:
			start = body.Start
		case *pb.RefereeMessage_Decision:
			reply, err := firstLegal(body.Decision)
			if err != nil {
				return err
			}
			if err := stream.Send(&pb.BotMessage{Body: &pb.BotMessage_Reply{Reply: reply}}); err != nil {
				return err
			}
		case *pb.RefereeMessage_End:
			if start != nil {
				fmt.Fprintf(os.Stderr, "%s: match %s seat %d ended by %s, score %v\n",
					name, start.MatchId, start.Seat, body.End.Reason, body.End.Score)
			}
		}
	}
}

// firstLegal is the whole strategy: the request's first legal action, copied.
func firstLegal(decision *pb.DecisionRequest) (*pb.DecisionReply, error) {
	if len(decision.Legal) == 0 {
		return nil, status.Errorf(codes.Unimplemented,
			"%s: seq %d asks %s with no legal actions listed; %s plays only decisions that list them",
			name, decision.Seq, decision.Kind, name)
	}
	return &pb.DecisionReply{
		Seq:    decision.Seq,
		Action: decision.Legal[0],
		Note:   fmt.Sprintf("first of %d legal", len(decision.Legal)),
	}, nil
}

func listen(port int, unix string) (net.Listener, error) {
	if unix != "" {
		return net.Listen("unix", unix)
	}
	if port < 0 {
		return nil, fmt.Errorf("give --port N or --unix PATH")
	}
	return net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
}

func main() {
	port := flag.Int("port", -1, "TCP port on 127.0.0.1 (0: any free port)")
	unix := flag.String("unix", "", "listen on this Unix socket path instead of TCP")
	flag.Parse()

	listener, err := listen(*port, *unix)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(2)
	}
	server := grpc.NewServer()
	pb.RegisterBotServer(server, bot{})
	checks := health.NewServer() // "" is SERVING from the start
	healthpb.RegisterHealthServer(server, checks)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		checks.Shutdown()
		timer := time.AfterFunc(stopGrace, server.Stop)
		server.GracefulStop()
		timer.Stop()
	}()

	if addr, ok := listener.Addr().(*net.TCPAddr); ok {
		fmt.Printf("%s bot serving waraq.v1.Bot on port %d\n", name, addr.Port)
	} else {
		fmt.Printf("%s bot serving waraq.v1.Bot on unix:%s\n", name, *unix)
	}
	if err := server.Serve(listener); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
