// DrFinder's motivating example (Cai & Cao, FSE 2015, Figure 2) as STD traces: the recorded
// order sigma1, whose lock edges hide the races on x and y, and sigma2 with both edges reversed.
#pragma once

namespace pecan::testing {

// Three threads; each sync(o){} is acq(o), rel(o). f1 calls f2, f3 calls f4 calls f5, f6 calls
// f7 calls f8. m1 = w(x) and m4 = r(x) race, and m2 = w(y) and m3 = r(y), but in sigma1 the
// HB edges e1 -> e9 (lock k) and e3 -> e6 (lock n) order them. The paper's text says the edges
// are on "n and k, respectively"; its walk-through (mt(f6, c_k) at e1, mt(f4, type(n)) at e3)
// and Table 1 fix e1/e9 on k and e3/e6 on n.
// Events: 0-2 forks; T1: 3 enter f1, 4 m1, 5 e1, 6, 7 enter f2, 8 e2, 9, 10 m2, 11 e3, 12, 13,
// 14; T2: 15 enter f3, 16 enter f4, 17 e4, 18, 19 e5, 20, 21 enter f5, 22 e6, 23, 24 m3, 25-27;
// T3: 28 enter f6, 29 enter f7, 30 e7, 31, 32 e8, 33, 34 enter f8, 35 e9, 36, 37 m4, 38-40;
// 41-43 joins.
inline constexpr const char* kDrFinderSigma1 = R"(T0|fork(T1)|1
T0|fork(T2)|2
T0|fork(T3)|3
T1|enter(f1)|10
T1|w(x)|11
T1|acq(k)|12
T1|rel(k)|13
T1|enter(f2)|14
T1|acq(o1)|15
T1|rel(o1)|16
T1|w(y)|17
T1|acq(n)|18
T1|rel(n)|19
T1|exit(f2)|20
T1|exit(f1)|21
T2|enter(f3)|30
T2|enter(f4)|31
T2|acq(o2)|32
T2|rel(o2)|33
T2|acq(o3)|34
T2|rel(o3)|35
T2|enter(f5)|36
T2|acq(n)|37
T2|rel(n)|38
T2|r(y)|39
T2|exit(f5)|40
T2|exit(f4)|41
T2|exit(f3)|42
T3|enter(f6)|50
T3|enter(f7)|51
T3|acq(o4)|52
T3|rel(o4)|53
T3|acq(o5)|54
T3|rel(o5)|55
T3|enter(f8)|56
T3|acq(k)|57
T3|rel(k)|58
T3|r(x)|59
T3|exit(f8)|60
T3|exit(f7)|61
T3|exit(f6)|62
T0|join(T1)|4
T0|join(T2)|5
T0|join(T3)|6
)";

// The same program with both lock edges reversed (the paper's Figure 3): T2 and T3 run first,
// so e6 -> e3 and e9 -> e1, and nothing orders m3 before m2 or m4 before m1.
// Events: 0-2 forks; T2: 3-15 (m3 = 12); T3: 16-28 (m4 = 25); T1: 29-40 (m1 = 30, m2 = 36).
inline constexpr const char* kDrFinderSigma2 = R"(T0|fork(T1)|1
T0|fork(T2)|2
T0|fork(T3)|3
T2|enter(f3)|30
T2|enter(f4)|31
T2|acq(o2)|32
T2|rel(o2)|33
T2|acq(o3)|34
T2|rel(o3)|35
T2|enter(f5)|36
T2|acq(n)|37
T2|rel(n)|38
T2|r(y)|39
T2|exit(f5)|40
T2|exit(f4)|41
T2|exit(f3)|42
T3|enter(f6)|50
T3|enter(f7)|51
T3|acq(o4)|52
T3|rel(o4)|53
T3|acq(o5)|54
T3|rel(o5)|55
T3|enter(f8)|56
T3|acq(k)|57
T3|rel(k)|58
T3|r(x)|59
T3|exit(f8)|60
T3|exit(f7)|61
T3|exit(f6)|62
T1|enter(f1)|10
T1|w(x)|11
T1|acq(k)|12
T1|rel(k)|13
T1|enter(f2)|14
T1|acq(o1)|15
T1|rel(o1)|16
T1|w(y)|17
T1|acq(n)|18
T1|rel(n)|19
T1|exit(f2)|20
T1|exit(f1)|21
T0|join(T1)|4
T0|join(T2)|5
T0|join(T3)|6
)";

}  // namespace pecan::testing
