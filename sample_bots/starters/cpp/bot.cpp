// The C++ starter bot for Waraq: a gRPC server for waraq.v1.Bot
// (protocol/waraq/v1/bot.proto) that plays Hokm for 2, 3 and 4 players.
//
// Your bot is the function choose, below the line of "=" signs: it gets one
// decision and returns one of its legal actions and a note saying why. The
// rest of this file is the protocol, and you need not touch it: Hello, the
// health service the referee waits on, one Play stream per seat of a match,
// the reply with the request's seq, and a prompt exit on SIGTERM.
//
//   bot --port N     listen on 127.0.0.1:N (0: any free port; the port is printed)
//   bot --unix PATH  listen on a Unix socket at PATH
//
// Build it with build.sh beside this file (README.md says which Debian packages
// it needs); the binary is bin/bot.

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "bot.grpc.pb.h"  // generated from bot.proto by the build, never edited

namespace pb = waraq::v1;

// Who the bot says it is (HelloReply): the records and `waraq match` name it so.
const std::string kBotName = "cpp-starter";
const std::string kBotVersion = "1.0";
const std::string kBotAuthor = "Waraq";

std::string describe(const pb::Action& action);

// ============================================================================
// YOUR BOT: edit choose (and the names above). Nothing below it needs to change.
// ============================================================================

struct Choice {
    pb::Action action;  // one of decision.legal()
    std::string note;   // why: the record keeps it beside the action, and `waraq replay` shows it
};

// choose answers one Hokm decision with one of decision.legal() and a short note.
//
// decision.kind() says what is asked and decision.legal() lists every legal
// answer; the Action field each one sets depends on the kind:
//
//   TRUMP    suit()       "S", "H", "D" or "C"   the hakem names trump from its first five cards
//   PLAY     card()       "10H"                  a card of the hand that may be played now
//   DISCARD  discard()    cards: "2C", "7D"      2 players: lay aside two cards after trump
//   DRAW     draw()       "keep" or "pass"       2 players: keep the stock's top card (view.offered())?
//   REDEAL   answer()     true or false          the hakem's five hold no card above 10: ask a new deal?
//   BAM      answer()     true or false          7 tricks to none: play on for all 13 (true) or stop?
//
// decision.hokm() is everything this seat may know: view.hand(), view.trump(),
// view.trick() (the trick so far), view.tricks() (this round's), view.scores()
// and the rest (bot.proto's HokmView). Each request is whole in itself, so
// choose needs no memory between calls. If you keep some, key it by
// decision.match_id() and guard it with a mutex: one process plays several
// matches at once, each Play stream on a thread of its own.
//
// rng is this seat's own, seeded from the match id and the seat: the same
// binary playing the same match again (same deal key) plays the same.
//
// Taking longer than decision.deadline_ms() plus what is left of
// decision.bank_ms() is a fault that forfeits the match. An action that is
// not in decision.legal(), or an exception, would be one too: reply, below,
// answers the first legal action instead, with a note that begins "fallback:"
// and a line in the bot's log. A crash (a bad pointer) it cannot catch.
//
// The strategy here is a placeholder: any legal action, at random. Replace it.
Choice choose(const pb::DecisionRequest& decision, std::mt19937& rng) {
    const auto& legal = decision.legal();
    std::uniform_int_distribution<int> any(0, legal.size() - 1);
    const pb::Action& action = legal[any(rng)];
    return {action, describe(action) + ": one of " + std::to_string(legal.size()) + " legal, at random"};
}

// describe spells an action for a note: "10H", "S", "2C 7D", "keep", "yes".
std::string describe(const pb::Action& action) {
    switch (action.action_case()) {
        case pb::Action::kSuit:
            return action.suit();
        case pb::Action::kCard:
            return action.card();
        case pb::Action::kDiscard: {
            std::string cards;
            for (const std::string& card : action.discard().cards()) {
                cards += (cards.empty() ? "" : " ") + card;
            }
            return cards;
        }
        case pb::Action::kDraw:
            return action.draw();
        case pb::Action::kAnswer:
            return action.answer() ? "yes" : "no";
        default:
            return action.ShortDebugString();
    }
}

// ============================================================================
// The protocol. bot.proto and docs/protocol.md are the contract it follows.
// ============================================================================

constexpr uint32_t kProtocolVersion = 1;
// A longer note is refused as MALFORMED, not trimmed: reply cuts it.
constexpr size_t kNoteBytes = 1024;
// How long SIGTERM waits for open Play streams before cutting them: the
// referee sends SIGKILL 3 s after SIGTERM.
constexpr auto kStopGrace = std::chrono::seconds(1);

// say writes one whole line: Play streams run on several threads at once.
// stdout and stderr go to the bot's log file (docs/protocol.md).
void say(std::ostream& out, const std::string& line) {
    static std::mutex lock;
    std::lock_guard<std::mutex> hold(lock);
    out << line << std::endl;
}

// same says whether two actions are the same answer; a DISCARD's two cards may come in any order.
bool same(const pb::Action& a, const pb::Action& b) {
    if (a.has_discard() && b.has_discard()) {
        std::vector<std::string> x(a.discard().cards().begin(), a.discard().cards().end());
        std::vector<std::string> y(b.discard().cards().begin(), b.discard().cards().end());
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        return x == y;
    }
    return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

// clip cuts a note to kNoteBytes, at a whole UTF-8 character.
std::string clip(std::string note) {
    if (note.size() > kNoteBytes) {
        size_t end = kNoteBytes;
        while (end > 0 && (static_cast<unsigned char>(note[end]) & 0xC0) == 0x80) {
            end--;  // a continuation byte: step back to the start of its character
        }
        note.resize(end);
    }
    return note;
}

// reply is choose's answer, carrying the request's seq as the referee requires.
// When choose throws or answers what is not legal, the first legal action
// stands in, so that a slip in choose costs a decision rather than the match.
pb::DecisionReply reply(const pb::DecisionRequest& decision, std::mt19937& rng) {
    Choice choice;
    std::string problem;
    try {
        choice = choose(decision, rng);
        const auto& legal = decision.legal();
        if (std::none_of(legal.begin(), legal.end(), [&](const pb::Action& a) { return same(a, choice.action); })) {
            problem = "choose answered " + describe(choice.action) + ", which is not one of the " +
                      std::to_string(legal.size()) + " legal";
        }
    } catch (const std::exception& error) {
        problem = std::string("choose threw: ") + error.what();
    } catch (...) {
        problem = "choose threw something that is no std::exception";
    }
    if (!problem.empty()) {
        say(std::cerr, kBotName + ": match " + decision.match_id() + " seq " + std::to_string(decision.seq()) +
                           " (" + decision.kind() + "): " + problem);
        choice = {decision.legal(0), "fallback: " + problem};
    }
    pb::DecisionReply out;
    out.set_seq(decision.seq());
    *out.mutable_action() = choice.action;
    out.set_note(clip(choice.note));
    return out;
}

// seeded is a seat's own random numbers, seeded from its match and seat.
std::mt19937 seeded(const pb::MatchStart& start) {
    std::string key = start.match_id() + "/" + std::to_string(start.seat());
    std::seed_seq seed(key.begin(), key.end());
    return std::mt19937(seed);
}

class BotService final : public pb::Bot::Service {
    grpc::Status Hello(grpc::ServerContext*, const pb::HelloRequest*, pb::HelloReply* out) override {
        out->set_name(kBotName);
        out->set_version(kBotVersion);
        out->set_author(kBotAuthor);
        out->set_protocol_version(kProtocolVersion);
        pb::GameSupport* hokm = out->add_games();
        hokm->set_game("hokm");
        for (uint32_t players : {2, 3, 4}) {
            hokm->add_players(players);
        }
        return grpc::Status::OK;
    }

    // Play serves one seat of one match: start, a decision at a time, end.
    // gRPC runs each stream on a thread of its own, so nothing here is shared.
    grpc::Status Play(grpc::ServerContext*,
                      grpc::ServerReaderWriter<pb::BotMessage, pb::RefereeMessage>* stream) override {
        pb::MatchStart start;
        std::mt19937 rng;
        pb::RefereeMessage message;
        // Read is false once the referee has closed its side (the match is over or
        // aborted), or the stream is cut (a SIGTERM's grace ran out).
        while (stream->Read(&message)) {
            switch (message.body_case()) {
                case pb::RefereeMessage::kStart:
                    start = message.start();
                    rng = seeded(start);
                    break;
                case pb::RefereeMessage::kDecision: {
                    const pb::DecisionRequest& decision = message.decision();
                    if (decision.legal().empty()) {
                        // Hand's TURN lists none; Hello offers only Hokm, which always lists them.
                        return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                            kBotName + ": seq " + std::to_string(decision.seq()) + " asks " +
                                                decision.kind() + " with no legal actions listed; this bot " +
                                                "plays only decisions that list them");
                    }
                    pb::BotMessage answer;
                    *answer.mutable_reply() = reply(decision, rng);
                    if (!stream->Write(answer)) {
                        return grpc::Status::OK;  // the stream is gone: nobody is left to answer
                    }
                    break;
                }
                case pb::RefereeMessage::kEnd: {
                    std::string score;
                    for (int32_t points : message.end().score()) {
                        score += (score.empty() ? "" : " ") + std::to_string(points);
                    }
                    say(std::cout, kBotName + ": match " + start.match_id() + " seat " +
                                       std::to_string(start.seat()) + " ended by " + message.end().reason() +
                                       ", score [" + score + "]");
                    break;
                }
                default:
                    break;  // a message a later protocol adds: not ours to answer
            }
        }
        return grpc::Status::OK;
    }
};

int usage(const std::string& problem) {
    std::cerr << kBotName << ": " << problem << "\nusage: bot --port N | --unix PATH" << std::endl;
    return 2;
}

int main(int argc, char** argv) {
    int port = -1;
    std::string unix_path;
    for (int i = 1; i < argc; i++) {
        std::string flag = argv[i];
        if ((flag != "--port" && flag != "--unix") || i + 1 == argc) {
            return usage("unknown option or missing value: '" + flag + "'");
        }
        std::string value = argv[++i];
        if (flag == "--unix") {
            unix_path = value;
            continue;
        }
        try {
            size_t used = 0;
            port = std::stoi(value, &used);
            if (used != value.size() || port < 0 || port > 65535) throw std::out_of_range(value);
        } catch (const std::exception&) {
            return usage("--port takes a number from 0 to 65535, not '" + value + "'");
        }
    }
    if (port < 0 && unix_path.empty()) {
        return usage("give --port N or --unix PATH");
    }
    // IPv4 loopback: the referee, and socat in its sandbox, dial 127.0.0.1.
    std::string address = unix_path.empty() ? "127.0.0.1:" + std::to_string(port) : "unix:" + unix_path;

    // SIGTERM and SIGINT are waited for by main, below, not caught by a handler
    // (a handler may not stop a gRPC server). Blocked before gRPC starts its
    // threads, so that every thread inherits the mask and none of them takes one.
    sigset_t stops;
    sigemptyset(&stops);
    sigaddset(&stops, SIGTERM);
    sigaddset(&stops, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stops, nullptr);

    // grpc.health.v1.Health, with "" SERVING from the start: the referee's readiness check.
    grpc::EnableDefaultHealthCheckService(true);
    BotService service;
    grpc::ServerBuilder builder;
    int bound = 0;  // the port gRPC bound, when --port 0 asked for any
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &bound);
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);  // a port in use is refused, never shared
    builder.RegisterService(&service);
    std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
    if (server == nullptr) {  // gRPC has said why on stderr
        std::cerr << kBotName << ": cannot listen on " << address << std::endl;
        return 2;
    }
    if (unix_path.empty()) {
        say(std::cout, kBotName + " bot serving waraq.v1.Bot on port " + std::to_string(bound));
    } else {
        say(std::cout, kBotName + " bot serving waraq.v1.Bot on unix:" + unix_path);
    }

    int signal = 0;
    sigwait(&stops, &signal);
    server->GetHealthCheckService()->Shutdown();
    // Open Play streams get kStopGrace to end; then gRPC cancels them and Shutdown returns.
    server->Shutdown(std::chrono::system_clock::now() + kStopGrace);
    return 0;
}
