import { createApp } from 'vue'
import App from './App.vue'
import { makeRouter } from './router'
import { initAuth } from './stores/auth'
import './style.css'

// Read (and strip) #token=... before the router interprets the fragment as a route.
initAuth()
createApp(App).use(makeRouter()).mount('#app')
