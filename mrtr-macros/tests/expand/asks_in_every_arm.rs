#[doc(hidden)]
#[allow(non_snake_case, missing_docs)]
mod __mrtr_route {
    #[allow(non_camel_case_types)]
    #[derive(
        ::core::clone::Clone,
        ::core::marker::Copy,
        ::core::fmt::Debug,
        ::core::default::Default
    )]
    pub struct route;
}
/**

# Flow

<pre class="mermaid">
flowchart TD
    start(["route"])
    ask0[/"ask pick: form"/]
    ask1[/"ask pick: form"/]
    ask2[/"ask pick: form"/]
    ask3[/"ask pick: form"/]
    done(["done"])
    start --> ask0
    start --> ask1
    start --> ask2
    start --> ask3
    start --> done
    ask0 --> ask2
    ask0 --> ask3
    ask0 --> done
    ask1 --> ask2
    ask1 --> ask3
    ask1 --> done
    ask2 --> done
    ask3 --> done
</pre>
<script type="module">import mermaid from "https://cdn.jsdelivr.net/npm/mermaid@11/dist/mermaid.esm.min.mjs"; mermaid.initialize({ startOnLoad: true });</script>
*/
#[allow(dead_code)]
fn route() -> __mrtr_route::route {
    __mrtr_route::route
}
#[automatically_derived]
impl ::mrtr::__private::Machine for __mrtr_route::route {
    fn fingerprint(&self) -> ::mrtr::__private::Fingerprint {
        static FINGERPRINT: ::std::sync::OnceLock<::mrtr::__private::Fingerprint> = ::std::sync::OnceLock::new();
        ::mrtr::__private::versioned_fingerprint(&FINGERPRINT, "tool", "route", 1u32)
    }
    fn resume_points(&self) -> &'static [::mrtr::__private::ResumePoint] {
        const POINTS: &[::mrtr::__private::ResumePoint] = &[
            ::mrtr::__private::ResumePoint {
                pc: 1u32,
                id: 220593600u32,
                label: "ask pick in if",
            },
            ::mrtr::__private::ResumePoint {
                pc: 3u32,
                id: 4278693766u32,
                label: "ask pick in else",
            },
            ::mrtr::__private::ResumePoint {
                pc: 4u32,
                id: 3493010597u32,
                label: "ask pick in match Mode :: Train",
            },
            ::mrtr::__private::ResumePoint {
                pc: 6u32,
                id: 650499419u32,
                label: "ask pick in match Mode :: Bus ( number ) if number > 0",
            },
        ];
        POINTS
    }
    fn known_forms(&self) -> ::std::vec::Vec<::mrtr::__private::Value> {
        ::std::vec![< Pick as ::mrtr::__private::Form > ::requested_schema()]
    }
    fn flowchart(&self) -> ::core::option::Option<&'static str> {
        ::core::option::Option::Some(
            "flowchart TD\n    start([\"route\"])\n    ask0[/\"ask pick: form\"/]\n    ask1[/\"ask pick: form\"/]\n    ask2[/\"ask pick: form\"/]\n    ask3[/\"ask pick: form\"/]\n    done([\"done\"])\n    start --> ask0\n    start --> ask1\n    start --> ask2\n    start --> ask3\n    start --> done\n    ask0 --> ask2\n    ask0 --> ask3\n    ask0 --> done\n    ask1 --> ask2\n    ask1 --> ask3\n    ask1 --> done\n    ask2 --> done\n    ask3 --> done\n",
        )
    }
    fn step<'__mrtr_a>(
        &'__mrtr_a self,
        __mrtr_step: ::mrtr::__private::Step<'__mrtr_a>,
    ) -> ::mrtr::__private::BoxFuture<
        '__mrtr_a,
        ::core::result::Result<::mrtr::__private::Outcome, ::mrtr::__private::StepError>,
    > {
        ::std::boxed::Box::pin(async move {
            use ::mrtr::__private as __mrtr_private;
            let __mrtr_private::Step {
                target: __mrtr_target,
                arguments: __mrtr_arguments,
                cx: __mrtr_cx,
                pc: __mrtr_pc_in,
                frame: __mrtr_frame,
                kept_types: __mrtr_kept_types_in,
                answers: mut __mrtr_answers,
                ..
            } = __mrtr_step;
            let __mrtr_channel = __mrtr_private::Channel::default();
            let __mrtr_body = __mrtr_private::body::<
                Result<String, ToolError>,
            >(async {
                #[allow(unused_imports)]
                use __mrtr_private::ask;
                macro_rules! __mrtr_try {
                    ($result:expr) => {
                        match $result { ::core::result::Result::Ok(value) => value,
                        ::core::result::Result::Err(error) => match
                        __mrtr_private::fail(& __mrtr_channel, error). await {}, }
                    };
                }
                const __MRTR_LITERALS: &[&str] = &[
                    "Fast: which line?",
                    "Slow: which road?",
                    "Which bus?",
                    "Which train?",
                    "fast by {line}",
                    "on foot",
                    "slow by {road}",
                    "{way}, then {ride}",
                ];
                #[allow(unused_mut, unused_variables)]
                let mut __mrtr_parsed_arguments: ::core::option::Option<RouteArgs> = ::core::option::Option::Some(
                    __mrtr_try!(__mrtr_private::arguments(__mrtr_arguments)),
                );
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_slot_1_value_1 = ::core::option::Option::None;
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_slot_4_way = ::core::option::Option::None;
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_slot_5_value_2 = ::core::option::Option::None;
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_witness_0_0 = ::core::option::Option::None;
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_witness_1_0 = ::core::option::Option::None;
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_witness_2_0 = ::core::option::Option::None;
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_witness_3_0 = ::core::option::Option::None;
                #[allow(dead_code)]
                trait __MrtrNeverImplemented {}
                #[diagnostic::on_unimplemented(
                    message = "`{Self}` cannot be kept in requestState across an `ask!`",
                    label = "this value is used after an `ask!`, so it is kept in requestState",
                    note = "kept values must implement Serialize and DeserializeOwned (derive them, forms and choices included) and cannot be references (except a `&'static str` that is one of the tool's string literals); or create the value again after the ask, or reach it through the context (`cx.state()`)"
                )]
                trait KeptAcrossAsk<M>: __mrtr_private::Kept {}
                impl<T: __mrtr_private::Kept> KeptAcrossAsk<()> for T {}
                impl<T: __mrtr_private::Kept + __MrtrNeverImplemented> KeptAcrossAsk<u8>
                for T {}
                fn __mrtr_keep<M, T: KeptAcrossAsk<M>>(
                    frame: &mut __mrtr_private::Frame,
                    name: &str,
                    slot: &::core::option::Option<T>,
                ) -> ::core::result::Result<(), __mrtr_private::StepError> {
                    __mrtr_private::keep(frame, name, slot)
                }
                fn __mrtr_restore<M, T: KeptAcrossAsk<M>>(
                    frame: &__mrtr_private::Frame,
                    name: &str,
                    literals: &'static [&'static str],
                ) -> ::core::result::Result<
                    ::core::option::Option<T>,
                    __mrtr_private::StepError,
                > {
                    let value = __mrtr_private::restore(frame, name, literals)?;
                    __mrtr_private::check_kept_round_trip(frame, name, &value);
                    ::core::result::Result::Ok(value)
                }
                {
                    trait NeverImplemented {}
                    #[diagnostic::on_unimplemented(
                        message = "`__mrtr_value_1` cannot live across an `ask!`: its type `{Self}` is not `Send`",
                        label = "this value lives across an `ask!`",
                        note = "a tool's rounds may run on any thread, so a value that lives across an `ask!` must be `Send`: use `Arc` instead of `Rc` and `std::sync::Mutex` instead of `RefCell`, or create the value again after the ask"
                    )]
                    trait SendAcrossAsk<M> {}
                    impl<T: ::core::marker::Send> SendAcrossAsk<()> for T {}
                    impl<T: ::core::marker::Send + NeverImplemented> SendAcrossAsk<u8>
                    for T {}
                    fn send_across_ask<M, T: SendAcrossAsk<M>>() -> ::core::option::Option<
                        T,
                    > {
                        ::core::option::Option::None
                    }
                    #[allow(unreachable_code, unused_assignments)]
                    if false {
                        __mrtr_slot_1_value_1 = send_across_ask();
                    }
                }
                {
                    trait NeverImplemented {}
                    #[diagnostic::on_unimplemented(
                        message = "`way` cannot live across an `ask!`: its type `{Self}` is not `Send`",
                        label = "this value lives across an `ask!`",
                        note = "a tool's rounds may run on any thread, so a value that lives across an `ask!` must be `Send`: use `Arc` instead of `Rc` and `std::sync::Mutex` instead of `RefCell`, or create the value again after the ask"
                    )]
                    trait SendAcrossAsk<M> {}
                    impl<T: ::core::marker::Send> SendAcrossAsk<()> for T {}
                    impl<T: ::core::marker::Send + NeverImplemented> SendAcrossAsk<u8>
                    for T {}
                    fn send_across_ask<M, T: SendAcrossAsk<M>>() -> ::core::option::Option<
                        T,
                    > {
                        ::core::option::Option::None
                    }
                    #[allow(unreachable_code, unused_assignments)]
                    if false {
                        __mrtr_slot_4_way = send_across_ask();
                    }
                }
                {
                    trait NeverImplemented {}
                    #[diagnostic::on_unimplemented(
                        message = "`__mrtr_value_2` cannot live across an `ask!`: its type `{Self}` is not `Send`",
                        label = "this value lives across an `ask!`",
                        note = "a tool's rounds may run on any thread, so a value that lives across an `ask!` must be `Send`: use `Arc` instead of `Rc` and `std::sync::Mutex` instead of `RefCell`, or create the value again after the ask"
                    )]
                    trait SendAcrossAsk<M> {}
                    impl<T: ::core::marker::Send> SendAcrossAsk<()> for T {}
                    impl<T: ::core::marker::Send + NeverImplemented> SendAcrossAsk<u8>
                    for T {}
                    fn send_across_ask<M, T: SendAcrossAsk<M>>() -> ::core::option::Option<
                        T,
                    > {
                        ::core::option::Option::None
                    }
                    #[allow(unreachable_code, unused_assignments)]
                    if false {
                        __mrtr_slot_5_value_2 = send_across_ask();
                    }
                }
                #[allow(unused_mut, unused_assignments)]
                let mut __mrtr_suspended: ::core::option::Option<
                    __mrtr_private::Suspension,
                > = ::core::option::Option::None;
                #[allow(unused_mut)]
                let mut __mrtr_pc: u32 = __mrtr_pc_in;
                match __mrtr_pc {
                    0 => {}
                    1u32 => {
                        __mrtr_try!(
                            __mrtr_private::check_kept_types(__mrtr_kept_types_in, {
                            static __MRTR_KEPT_TYPES : ::std::sync::OnceLock < u32 > =
                            ::std::sync::OnceLock::new(); & __MRTR_KEPT_TYPES }, &
                            [("ask pick", __mrtr_private::answer_type_of(&
                            __mrtr_witness_0_0))])
                        );
                    }
                    3u32 => {
                        __mrtr_try!(
                            __mrtr_private::check_kept_types(__mrtr_kept_types_in, {
                            static __MRTR_KEPT_TYPES : ::std::sync::OnceLock < u32 > =
                            ::std::sync::OnceLock::new(); & __MRTR_KEPT_TYPES }, &
                            [("ask pick", __mrtr_private::answer_type_of(&
                            __mrtr_witness_1_0))])
                        );
                    }
                    4u32 => {
                        __mrtr_try!(
                            __mrtr_private::check_kept_types(__mrtr_kept_types_in, {
                            static __MRTR_KEPT_TYPES : ::std::sync::OnceLock < u32 > =
                            ::std::sync::OnceLock::new(); & __MRTR_KEPT_TYPES }, &
                            [("ask pick", __mrtr_private::answer_type_of(&
                            __mrtr_witness_2_0)), ("way", __mrtr_private::type_of(&
                            __mrtr_slot_4_way))])
                        );
                        __mrtr_slot_4_way = __mrtr_try!(
                            __mrtr_restore(& __mrtr_frame, "way", __MRTR_LITERALS)
                        );
                    }
                    6u32 => {
                        __mrtr_try!(
                            __mrtr_private::check_kept_types(__mrtr_kept_types_in, {
                            static __MRTR_KEPT_TYPES : ::std::sync::OnceLock < u32 > =
                            ::std::sync::OnceLock::new(); & __MRTR_KEPT_TYPES }, &
                            [("ask pick", __mrtr_private::answer_type_of(&
                            __mrtr_witness_3_0)), ("way", __mrtr_private::type_of(&
                            __mrtr_slot_4_way))])
                        );
                        __mrtr_slot_4_way = __mrtr_try!(
                            __mrtr_restore(& __mrtr_frame, "way", __MRTR_LITERALS)
                        );
                    }
                    _ => {
                        let __mrtr_error = __mrtr_private::StepError::Frame(
                            ::std::format!("no resume point {}", __mrtr_pc),
                        );
                        match __mrtr_private::fail(&__mrtr_channel, __mrtr_error).await {}
                    }
                }
                #[allow(unreachable_code, clippy::never_loop)]
                let __mrtr_stopped: __mrtr_private::BreakInsideAnotherMacroCannotLeaveALoopThatAsks = '__mrtr_machine: loop {
                    match __mrtr_pc {
                        0u32 => {
                            #[allow(unused_variables, unused_mut)]
                            let args: RouteArgs = __mrtr_try!(
                                __mrtr_private::reuse_arguments(& mut
                                __mrtr_parsed_arguments, __mrtr_arguments)
                            );
                            #[allow(unreachable_code)]
                            let __mrtr_value_1 = if args.fast {
                                #[allow(unreachable_code, unused_assignments)]
                                {
                                    let __mrtr_question_0 = elicit::form::<
                                        Pick,
                                    >("Fast: which line?");
                                    __mrtr_witness_0_0 = ::core::option::Option::Some(
                                        __mrtr_private::answer_type(&__mrtr_question_0),
                                    );
                                    let mut __mrtr_frame_out = __mrtr_private::Frame::new();
                                    __mrtr_suspended = ::core::option::Option::Some(
                                        __mrtr_private::Suspension::new(
                                                1u32,
                                                __mrtr_frame_out.into_value(),
                                            )
                                            .keeping(
                                                __mrtr_private::kept_types_once(
                                                    {
                                                        static __MRTR_KEPT_TYPES: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
                                                        &__MRTR_KEPT_TYPES
                                                    },
                                                    &[
                                                        (
                                                            "ask pick",
                                                            __mrtr_private::answer_type_of(&__mrtr_witness_0_0),
                                                        ),
                                                    ],
                                                ),
                                            )
                                            .ask("pick", __mrtr_question_0),
                                    );
                                    __mrtr_pc = 4294967295u32;
                                    continue '__mrtr_machine;
                                }
                            } else {
                                {
                                    #[allow(unreachable_code, unused_assignments)]
                                    {
                                        let __mrtr_question_0 = elicit::form::<
                                            Pick,
                                        >("Slow: which road?");
                                        __mrtr_witness_1_0 = ::core::option::Option::Some(
                                            __mrtr_private::answer_type(&__mrtr_question_0),
                                        );
                                        let mut __mrtr_frame_out = __mrtr_private::Frame::new();
                                        __mrtr_suspended = ::core::option::Option::Some(
                                            __mrtr_private::Suspension::new(
                                                    3u32,
                                                    __mrtr_frame_out.into_value(),
                                                )
                                                .keeping(
                                                    __mrtr_private::kept_types_once(
                                                        {
                                                            static __MRTR_KEPT_TYPES: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
                                                            &__MRTR_KEPT_TYPES
                                                        },
                                                        &[
                                                            (
                                                                "ask pick",
                                                                __mrtr_private::answer_type_of(&__mrtr_witness_1_0),
                                                            ),
                                                        ],
                                                    ),
                                                )
                                                .ask("pick", __mrtr_question_0),
                                        );
                                        __mrtr_pc = 4294967295u32;
                                        continue '__mrtr_machine;
                                    }
                                }
                            };
                            #[allow(unreachable_code)]
                            {
                                __mrtr_slot_1_value_1 = ::core::option::Option::Some(
                                    __mrtr_value_1,
                                );
                                __mrtr_pc = 2u32;
                                continue '__mrtr_machine;
                            }
                        }
                        1u32 => {
                            let line = (__mrtr_try!(
                                __mrtr_private::answer(& mut __mrtr_answers, "pick", &
                                __mrtr_witness_0_0)
                            ))
                                .accepted()?
                                .pick;
                            #[allow(unreachable_code, clippy::diverging_sub_expression)]
                            let __mrtr_value_1 = format!("fast by {line}");
                            #[allow(unreachable_code)]
                            {
                                __mrtr_slot_1_value_1 = ::core::option::Option::Some(
                                    __mrtr_value_1,
                                );
                                __mrtr_pc = 2u32;
                                continue '__mrtr_machine;
                            }
                        }
                        3u32 => {
                            let road = (__mrtr_try!(
                                __mrtr_private::answer(& mut __mrtr_answers, "pick", &
                                __mrtr_witness_1_0)
                            ))
                                .accepted()?
                                .pick;
                            #[allow(unreachable_code, clippy::diverging_sub_expression)]
                            let __mrtr_value_1 = format!("slow by {road}");
                            #[allow(unreachable_code)]
                            {
                                __mrtr_slot_1_value_1 = ::core::option::Option::Some(
                                    __mrtr_value_1,
                                );
                                __mrtr_pc = 2u32;
                                continue '__mrtr_machine;
                            }
                        }
                        2u32 => {
                            #[allow(unused_variables, unused_mut)]
                            let args: RouteArgs = __mrtr_try!(
                                __mrtr_private::reuse_arguments(& mut
                                __mrtr_parsed_arguments, __mrtr_arguments)
                            );
                            #[allow(unused_mut, unused_variables)]
                            let __mrtr_value_1 = __mrtr_try!(
                                __mrtr_private::unslot(& mut __mrtr_slot_1_value_1,
                                "__mrtr_value_1")
                            );
                            let way = __mrtr_value_1;
                            #[allow(unreachable_code)]
                            let __mrtr_value_2 = match args.mode {
                                Mode::Train => {
                                    let __mrtr_question_0 = elicit::form::<
                                        Pick,
                                    >("Which train?");
                                    __mrtr_witness_2_0 = ::core::option::Option::Some(
                                        __mrtr_private::answer_type(&__mrtr_question_0),
                                    );
                                    __mrtr_slot_4_way = ::core::option::Option::Some(way);
                                    let mut __mrtr_frame_out = __mrtr_private::Frame::new();
                                    __mrtr_try!(
                                        __mrtr_keep(& mut __mrtr_frame_out, "way", &
                                        __mrtr_slot_4_way)
                                    );
                                    __mrtr_suspended = ::core::option::Option::Some(
                                        __mrtr_private::Suspension::new(
                                                4u32,
                                                __mrtr_frame_out.into_value(),
                                            )
                                            .keeping(
                                                __mrtr_private::kept_types_once(
                                                    {
                                                        static __MRTR_KEPT_TYPES: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
                                                        &__MRTR_KEPT_TYPES
                                                    },
                                                    &[
                                                        (
                                                            "ask pick",
                                                            __mrtr_private::answer_type_of(&__mrtr_witness_2_0),
                                                        ),
                                                        ("way", __mrtr_private::type_of(&__mrtr_slot_4_way)),
                                                    ],
                                                ),
                                            )
                                            .ask("pick", __mrtr_question_0),
                                    );
                                    __mrtr_pc = 4294967295u32;
                                    continue '__mrtr_machine;
                                }
                                Mode::Bus(number) if number > 0 => {
                                    let __mrtr_question_0 = elicit::form::<Pick>("Which bus?");
                                    __mrtr_witness_3_0 = ::core::option::Option::Some(
                                        __mrtr_private::answer_type(&__mrtr_question_0),
                                    );
                                    __mrtr_slot_4_way = ::core::option::Option::Some(way);
                                    let mut __mrtr_frame_out = __mrtr_private::Frame::new();
                                    __mrtr_try!(
                                        __mrtr_keep(& mut __mrtr_frame_out, "way", &
                                        __mrtr_slot_4_way)
                                    );
                                    __mrtr_suspended = ::core::option::Option::Some(
                                        __mrtr_private::Suspension::new(
                                                6u32,
                                                __mrtr_frame_out.into_value(),
                                            )
                                            .keeping(
                                                __mrtr_private::kept_types_once(
                                                    {
                                                        static __MRTR_KEPT_TYPES: ::std::sync::OnceLock<u32> = ::std::sync::OnceLock::new();
                                                        &__MRTR_KEPT_TYPES
                                                    },
                                                    &[
                                                        (
                                                            "ask pick",
                                                            __mrtr_private::answer_type_of(&__mrtr_witness_3_0),
                                                        ),
                                                        ("way", __mrtr_private::type_of(&__mrtr_slot_4_way)),
                                                    ],
                                                ),
                                            )
                                            .ask("pick", __mrtr_question_0),
                                    );
                                    __mrtr_pc = 4294967295u32;
                                    continue '__mrtr_machine;
                                }
                                _ => "on foot".to_owned(),
                            };
                            #[allow(unreachable_code)]
                            {
                                __mrtr_slot_4_way = ::core::option::Option::Some(way);
                                __mrtr_slot_5_value_2 = ::core::option::Option::Some(
                                    __mrtr_value_2,
                                );
                                __mrtr_pc = 5u32;
                                continue '__mrtr_machine;
                            }
                        }
                        4u32 => {
                            #[allow(unreachable_code, clippy::diverging_sub_expression)]
                            let __mrtr_value_2 = (__mrtr_try!(
                                __mrtr_private::answer(& mut __mrtr_answers, "pick", &
                                __mrtr_witness_2_0)
                            ))
                                .accepted()?
                                .pick;
                            #[allow(unreachable_code)]
                            {
                                __mrtr_slot_5_value_2 = ::core::option::Option::Some(
                                    __mrtr_value_2,
                                );
                                __mrtr_pc = 5u32;
                                continue '__mrtr_machine;
                            }
                        }
                        6u32 => {
                            #[allow(unreachable_code, clippy::diverging_sub_expression)]
                            let __mrtr_value_2 = (__mrtr_try!(
                                __mrtr_private::answer(& mut __mrtr_answers, "pick", &
                                __mrtr_witness_3_0)
                            ))
                                .accepted()?
                                .pick;
                            #[allow(unreachable_code)]
                            {
                                __mrtr_slot_5_value_2 = ::core::option::Option::Some(
                                    __mrtr_value_2,
                                );
                                __mrtr_pc = 5u32;
                                continue '__mrtr_machine;
                            }
                        }
                        5u32 => {
                            #[allow(unused_mut, unused_variables)]
                            let __mrtr_value_2 = __mrtr_try!(
                                __mrtr_private::unslot(& mut __mrtr_slot_5_value_2,
                                "__mrtr_value_2")
                            );
                            #[allow(unused_mut, unused_variables)]
                            let way = __mrtr_try!(
                                __mrtr_private::unslot(& mut __mrtr_slot_4_way, "way")
                            );
                            let ride = __mrtr_value_2;
                            #[allow(unreachable_code, clippy::diverging_sub_expression)]
                            return Ok(format!("{way}, then {ride}"));
                        }
                        4294967295u32 => {
                            match __mrtr_suspended.take() {
                                ::core::option::Option::Some(__mrtr_suspension) => {
                                    match __mrtr_private::suspend(
                                            &__mrtr_channel,
                                            __mrtr_suspension,
                                        )
                                        .await
                                    {}
                                }
                                ::core::option::Option::None => {
                                    let __mrtr_error = __mrtr_private::StepError::Internal(
                                        ::std::string::String::from("no suspension to wait at"),
                                    );
                                    match __mrtr_private::fail(&__mrtr_channel, __mrtr_error)
                                        .await
                                    {}
                                }
                            }
                        }
                        _ => {
                            let __mrtr_error = __mrtr_private::StepError::Internal(
                                ::std::format!("no block {}", __mrtr_pc),
                            );
                            match __mrtr_private::fail(&__mrtr_channel, __mrtr_error)
                                .await
                            {}
                        }
                    }
                };
                #[allow(unreachable_code)] match __mrtr_stopped {}
            });
            let __mrtr_ended = __mrtr_private::drive(__mrtr_body, &__mrtr_channel)
                .await?;
            ::core::result::Result::Ok(__mrtr_private::finish_tool(__mrtr_ended))
        })
    }
}
#[automatically_derived]
impl ::mrtr::__private::Tool for __mrtr_route::route {
    fn descriptor(&self) -> ::mrtr::__private::ToolDescriptor {
        let mut __mrtr_descriptor = ::mrtr::__private::ToolDescriptor::new(
                "route",
                ::mrtr::__private::input_schema::<RouteArgs>(),
            )
            .asks([::mrtr::__private::InputKind::FormElicitation]);
        __mrtr_descriptor.single_use = false;
        __mrtr_descriptor
    }
}
#[automatically_derived]
impl ::mrtr::__private::Generated for __mrtr_route::route {
    type Descriptor = ::mrtr::__private::ToolDescriptor;
    fn describe(&self) -> Self::Descriptor {
        <Self as ::mrtr::__private::Tool>::descriptor(self)
    }
}
